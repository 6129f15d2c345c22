/**
 * GET /openapi.json says what the server does. One test per disagreement a review found; where
 * the document states a rule the validator holds in code (a refinement, a coerced string), the test also holds
 * the two to the same boundaries, so they cannot drift apart silently. test/system/api-fuzz.test.ts checks the
 * whole document against a running server.
 */
import { loadApiConfig } from '../../../api/api-config';
import { buildOpenApiDocument } from '../../../api/openapi';
import { listQuerySchema } from '../../../api/response-schemas';
import { buildCatalogue, imageRequestSchema, videoRequestSchema } from '../../../platforms';
import { MEDIA_EXTENSIONS } from '../../../results/result-store';
import Router from '@koa/router';
import { videoRoutes } from '../../../api/openai-videos/routes';
import { videoInputRoutes } from '../../../api/openai-videos/uploads';

/** The document of the default configuration: built from the same objects the API runs with (api/api-config.ts). */
const config = loadApiConfig({});
const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(config))) as any;

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema: { type?: string; minimum?: number; maximum?: number; enum?: string[]; pattern?: string };
}
const parameter = (path: string, method: string, name: string): Parameter => {
  const found = (doc.paths[path][method].parameters as Parameter[]).find((p) => p.name === name);
  if (!found) throw new Error(`${method.toUpperCase()} ${path} documents no parameter ${name}`);
  return found;
};
const CONTENT = '/v1/generations/{task_id}/content';

describe('GET /v1/tasks: page and page_size', () => {
  test.each([
    ['page', 1, 10_000],
    ['page_size', 1, 100],
  ])('%s is an integer from %d to %d, the bounds the server holds it to', (name, min, max) => {
    const { schema } = parameter('/v1/tasks', 'get', name);
    expect(schema).toMatchObject({ type: 'integer', minimum: min, maximum: max });
    const accepts = (value: number) => listQuerySchema.safeParse({ [name]: String(value) }).success;
    expect([accepts(schema.minimum!), accepts(schema.maximum!)]).toEqual([true, true]);
    expect([accepts(schema.minimum! - 1), accepts(schema.maximum! + 1)]).toEqual([false, false]);
  });
});

describe('generation requests: prompt', () => {
  test.each([
    ['VideoGenerationRequest', videoRequestSchema, 'vendor-video-1-0-pro-250528'],
    ['ImageGenerationRequest', imageRequestSchema, 'NB'],
  ] as const)('%s: prompt and negative_prompt need a character that is not whitespace, as the validator does', (id, schema, model) => {
    const { properties } = doc.components.schemas[id];
    for (const field of ['prompt', 'negative_prompt']) {
      expect(properties[field]).toMatchObject({ type: 'string', minLength: 1, pattern: '\\S' });
      const pattern = new RegExp(properties[field].pattern as string);
      for (const value of ['', '   ', '\t\n']) {
        expect(pattern.test(value)).toBe(false);
        const parsed = schema.safeParse({ model, prompt: 'a cat', [field]: value });
        expect(parsed.success ? undefined : parsed.error.issues[0]!.path).toEqual([field]);
      }
      expect(pattern.test(' a cat ')).toBe(true);
    }
  });
});

describe(`GET ${CONTENT}`, () => {
  test('the file is served as the media type it was kept with (image/png, video/mp4…), not only application/octet-stream', () => {
    const { responses } = doc.paths[CONTENT].get;
    for (const status of ['200', '206']) {
      const types = Object.keys(responses[status].content);
      expect(types).toEqual(
        expect.arrayContaining(['image/png', 'video/mp4', 'application/octet-stream', ...Object.keys(MEDIA_EXTENSIONS)]),
      );
    }
  });

  test('a malformed index or which, or index with which=last_frame, is a documented 400; an expired or altered link token a documented 403', () => {
    const { responses } = doc.paths[CONTENT].get;
    expect(responses['400'].description).toMatch(/index with which=last_frame/);
    expect(responses['403'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(responses['403'].description).toMatch(/link_expired/);
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['304', '410']));
  });

  test('which takes result or last_frame; index is a whole number, and says it does not go with which=last_frame', () => {
    expect(parameter(CONTENT, 'get', 'which').schema.enum).toEqual(['result', 'last_frame']);
    const index = parameter(CONTENT, 'get', 'index');
    expect(index.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 9999 });
    expect(index.description).toMatch(/Not with which=last_frame \(400\)/);
  });
});

describe('HEAD ' + CONTENT, () => {
  test('is documented (the route serves it), answering the statuses GET does, without a body', () => {
    const head = doc.paths[CONTENT].head;
    expect(Object.keys(head.responses).sort()).toEqual(Object.keys(doc.paths[CONTENT].get.responses).sort());
    for (const response of Object.values(head.responses)) expect(response).not.toHaveProperty('content');
    expect(head.parameters).toEqual(doc.paths[CONTENT].get.parameters);
  });
});

describe('POST /v1/videos/generations: X-Async', () => {
  test('takes true/1 and false/0 in any letter case, and not an empty value (400), as api/routes/generations.ts reads it', () => {
    const pattern = new RegExp(parameter('/v1/videos/generations', 'post', 'X-Async').schema.pattern!);
    for (const value of ['true', 'TRUE', 'True', '1', 'false', 'False', '0']) expect([value, pattern.test(value)]).toEqual([value, true]);
    for (const value of ['', 'yes', '2', 'maybe', 'truex', ' true1']) expect([value, pattern.test(value)]).toEqual([value, false]);
  });
});

describe('POST /v1/callbacks/{platform}', () => {
  test('403 (callbacks of the platform not enabled on this gateway) is documented', () => {
    for (const path of ['/v1/callbacks/{platform}', '/v1/callbacks/{platform}/{task_id}']) {
      expect(doc.paths[path].post.responses['403']).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
    }
  });

  test("T's and B's events need a JSON body (an empty one is 400); V's per-task callback may come without one", () => {
    expect(doc.paths['/v1/callbacks/{platform}'].post.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { type: 'object' } } },
    });
    expect(doc.paths['/v1/callbacks/{platform}/{task_id}'].post.requestBody).toMatchObject({ required: false });
  });
});

describe('the admin API', () => {
  test.each([
    ['post', '/admin/v1/keys'],
    ['get', '/admin/v1/keys'],
    ['get', '/admin/v1/keys/{id}'],
    ['patch', '/admin/v1/keys/{id}'],
    ['delete', '/admin/v1/keys/{id}'],
    ['get', '/admin/v1/usage'],
    ['get', '/admin/v1/tasks'],
    ['get', '/admin/v1/tasks/{task_id}'],
    ['post', '/admin/v1/tasks/{task_id}/cancel'],
    ['post', '/admin/v1/replays'],
    ['get', '/admin/v1/accounts'],
    ['get', '/admin/v1/deliveries'],
    ['post', '/admin/v1/deliveries/{task_id}/redeliver'],
    ['get', '/admin/v1/overview'],
    ['get', '/admin/v1/reconciliations'],
    ['post', '/admin/v1/reconciliations'],
    ['get', '/admin/v1/reconciliations/{id}'],
    ['delete', '/admin/v1/sessions/current'],
  ])('%s %s is documented, with the admin token or a console session made with it as its only security', (method, path) => {
    expect(doc.paths[path]?.[method]?.security).toEqual([{ adminAuth: [] }, { consoleSession: [] }]);
    expect(Object.keys(doc.paths[path][method].responses)).toEqual(expect.arrayContaining(['401', '403']));
  });

  test('a budget names its currencies and periods as the server holds them', () => {
    const budget = doc.components.schemas.Budget;
    expect(budget.properties.currency.enum).toEqual(['USD', 'CNY']);
    expect(budget.properties.period.enum).toEqual(['day', 'month', 'total']);
  });
});

describe('GET /v1/usage', () => {
  test('is documented with its parameters, JSON and CSV', () => {
    const op = doc.paths['/v1/usage'].get;
    expect(op.parameters.map((p: Parameter) => p.name).sort()).toEqual(['end', 'group_by', 'start']);
    expect(Object.keys(op.responses['200'].content).sort()).toEqual(['application/json', 'text/csv']);
    expect(parameter('/v1/usage', 'get', 'group_by').schema.enum).toEqual(['model', 'route', 'served_model', 'day']);
  });
});

describe('budgets', () => {
  test.each([
    '/v1/videos/generations',
    '/v1/async/videos/generations',
    '/v1/images/generations',
    '/v1/async/images/generations',
    '/v1/videos',
  ])('POST %s documents 402 budget_exceeded', (path) => {
    expect(doc.paths[path].post.responses['402'].description).toMatch(/budget/);
  });
});

describe('the Videos API (api/openai-videos/)', () => {
  test('every route it serves is in the document, with its method', () => {
    const router = new Router();
    videoRoutes(router as never, { catalogue: buildCatalogue() } as never);
    const inputs = videoInputRoutes({} as never);
    const served = [...router.stack, ...inputs.stack].flatMap((layer) =>
      layer.methods
        .filter((m) => m !== 'HEAD')
        .map(
          (m) =>
            `${m.toLowerCase()} ${String(layer.path)
              .replace('task_:video_ref', '{video_id}')
              .replace(/:([a-z_]+)/g, '{$1}')}`,
        ),
    );
    expect(served.length).toBeGreaterThanOrEqual(10);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(documented).toEqual(expect.arrayContaining(served));
  });

  test('seconds is documented as a string or a number, size as WxH, and the form takes the upload as binary', () => {
    const body = doc.paths['/v1/videos'].post.requestBody.content;
    expect(body['application/json'].schema.properties.seconds.anyOf.map((s: { type: string }) => s.type).sort()).toEqual([
      'number',
      'string',
    ]);
    expect(body['multipart/form-data'].schema.properties.input_reference).toMatchObject({ type: 'string', format: 'binary' });
    expect(doc.paths['/v1/videos/{video_id}'].delete.responses).toHaveProperty('409');
    // The router matches only task ids there (api/openai-videos/routes.ts VIDEO_PATH); the document says so.
    expect(parameter('/v1/videos/{video_id}', 'get', 'video_id').schema.pattern).toBe('^task_[A-Za-z0-9_-]{1,123}$');
  });
});

describe('client webhooks and the event stream', () => {
  test('every route is documented: the secret, the deliveries, the redelivery and the SSE stream', () => {
    expect(doc.paths['/v1/webhooks/default/secret'].get).toBeDefined();
    expect(doc.paths['/v1/generations/{task_id}/deliveries'].get).toBeDefined();
    expect(doc.paths['/v1/generations/{task_id}/deliveries/redeliver'].post.responses['202']).toBeDefined();
    expect(Object.keys(doc.paths['/v1/generations/{task_id}/events'].get.responses['200'].content)).toEqual(['text/event-stream']);
  });

  test('both generation requests take webhook_url and webhook_events (the three events)', () => {
    for (const id of ['VideoGenerationRequest', 'ImageGenerationRequest']) {
      const props = doc.components.schemas[id].properties;
      expect(props.webhook_url).toMatchObject({ type: 'string' });
      expect(props.webhook_events.items.enum).toEqual(['running', 'succeeded', 'failed']);
    }
  });
});

describe('the deployment it states', () => {
  const modelEnum = (d: any) => d.components.schemas.VideoGenerationRequest.properties.model.enum as string[];

  test("the model enum is the app's catalogue and route table, not a second one read from the environment", () => {
    const route = config.routes.routes.find((r) => r.kind === 'video')!.name;
    expect(modelEnum(doc)).toContain(route);
    const withoutRoutes = buildOpenApiDocument({ catalogue: config.catalogue });
    expect(modelEnum(withoutRoutes)).not.toContain(route);
    expect(modelEnum(withoutRoutes)).toEqual([...new Set(config.catalogue.entries.filter((e) => e.kind === 'video').map((e) => e.id))]);
  });
});
