/**
 * The facts no public source confirms are marked in the catalogue and the platforms, listed in
 * docs/api.md's "unconfirmed with a real account" table (generated; model-docs.test.ts fails while it is stale),
 * and each is changed without a code change by the setting or models-file entry its mark names.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalogue, platformById, videoRequestSchema } from '../../platforms';
import { toBCreate } from '../../platforms/b/request-body';
import { createHttpClient } from '../../platforms/http';
import { RequestRuleError, validateGeneration } from '../../platforms/validation';
import { renderUnconfirmedTable, unconfirmedFacts } from '../../scripts/model-docs';
import { startSimulator, type Simulator } from '../../sim/server';

/** The issue's list (A.6) and the A.2 unknowns, by the ids their marks carry. */
const ISSUE_FACTS = [
  't.kling-2.1-sound',
  't.kling-2.5-sound',
  'v.2-0-first-last-frame',
  'v.2-0-references',
  'b.kling-fields',
  'b.pixverse-fields',
  'b.hailuo-fields',
  'b.callback-switch',
  'b.v3-reads-through-v2',
  't.describe-tasks-lists-aigc',
  't.session-id-repeat-code',
  'v.endpoint-listed-model',
  'b.echo-exact',
];

const ALL = new Set(['T', 'V', 'B']);

function modelsFile(json: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'unconfirmed-')), 'models.json');
  writeFileSync(path, JSON.stringify(json));
  return path;
}

function refusedParam(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof RequestRuleError) return err.param;
    throw err;
  }
}

test('the unconfirmed table lists every fact of the issue, each with an override', () => {
  const table = renderUnconfirmedTable();
  const facts = unconfirmedFacts();
  for (const id of ISSUE_FACTS) {
    const fact = facts.find((f) => f.id === id);
    expect(fact).toBeDefined();
    expect(fact!.override.length).toBeGreaterThan(10);
    expect(table).toContain(`| \`${id}\` | ${fact!.platform} |`);
  }
  expect(new Set(facts.map((f) => f.id)).size).toBe(facts.length);
});

test("a T models file turning Kling 2.1's sound off makes sound a 400 on it; without it sound is taken", () => {
  const request = { model: 'VendorK-2.1', action: 'text_to_video', prompt: 'a cat', duration: 5, resolution: '720P', generate_audio: true };
  expect(refusedParam(() => validateGeneration(buildCatalogue(), ALL, 'video', { ...request }))).toBeUndefined();
  const override = unconfirmedFacts().find((f) => f.id === 't.kling-2.1-sound')!.override;
  // The override the table names, taken literally: the JSON after the variable's name.
  const file = modelsFile(JSON.parse(override.slice(override.indexOf('{'), override.lastIndexOf('}') + 1)));
  const catalogue = buildCatalogue({ PLATFORM_T_MODELS_FILE: file });
  expect(refusedParam(() => validateGeneration(catalogue, ALL, 'video', { ...request }))).toBe('generate_audio');
  expect(catalogue.find('video', 'VendorK-2.1')!.unconfirmed?.map((f) => f.id)).toEqual(['t.kling-2.1-sound']);
});

test('a V models file giving 2.0 first+last frame makes last_frame_url accepted on it; without it, a 400', () => {
  const request = {
    model: 'vendor-video-2-0-260128',
    action: 'image_to_video',
    prompt: 'a cat',
    duration: 5,
    image_url: 'https://example.com/a.png',
    last_frame_url: 'https://example.com/b.png',
  };
  expect(refusedParam(() => validateGeneration(buildCatalogue(), ALL, 'video', { ...request }))).toBe('last_frame_url');
  const override = unconfirmedFacts().find((f) => f.id === 'v.2-0-first-last-frame')!.override;
  const catalogue = buildCatalogue({
    PLATFORM_V_MODELS_FILE: modelsFile(JSON.parse(override.slice(override.indexOf('{'), override.lastIndexOf('}') + 1))),
  });
  expect(refusedParam(() => validateGeneration(catalogue, ALL, 'video', { ...request }))).toBeUndefined();
});

test("a V models file changing 2.0's reference video count (extras.maxReferenceVideos) changes what is accepted", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://example.com/v${i}.mp4` }));
  // Through the request schema first, as the API does: 4 videos in all (video_url and 3 in videos).
  const request = (n: number) =>
    videoRequestSchema.parse({
      model: 'vendor-video-2-0-260128',
      prompt: 'edit it',
      duration: 5,
      video_url: 'https://example.com/v.mp4',
      videos: many(n),
    }) as Record<string, unknown> & { model: string };
  expect(refusedParam(() => validateGeneration(buildCatalogue(), ALL, 'video', request(3)))).toBe('video_url');
  const override = unconfirmedFacts().find((f) => f.id === 'v.2-0-references')!.override;
  expect(override).toContain('maxReferenceVideos');
  const raised = buildCatalogue({
    PLATFORM_V_MODELS_FILE: modelsFile({ models: { 'vendor-video-2-0-260128': { extras: { maxReferenceVideos: 4 } } } }),
  });
  expect(refusedParam(() => validateGeneration(raised, ALL, 'video', request(3)))).toBeUndefined();
  const lowered = buildCatalogue({
    PLATFORM_V_MODELS_FILE: modelsFile({ models: { 'vendor-video-2-0-260128': { extras: { maxReferenceVideos: 1 } } } }),
  });
  expect(refusedParam(() => validateGeneration(lowered, ALL, 'video', request(1)))).toBe('video_url');
  expect(refusedParam(() => validateGeneration(buildCatalogue(), ALL, 'video', request(1)))).toBeUndefined();
});

test("a B models file renaming Kling's last frame field changes what is sent", () => {
  const override = unconfirmedFacts().find((f) => f.id === 'b.kling-fields')!.override;
  expect(override).toContain('PLATFORM_B_MODELS_FILE');
  const body = {
    model: 'K16',
    action: 'image_to_video',
    prompt: 'a cat',
    duration: 5,
    image_url: 'https://example.com/a.png',
    last_frame_url: 'https://example.com/b.png',
  };
  const sent = (catalogue: ReturnType<typeof buildCatalogue>) => {
    const { entry, request } = validateGeneration(catalogue, ALL, 'video', { ...body });
    return JSON.stringify(toBCreate(entry, request).body);
  };
  expect(sent(buildCatalogue())).toContain('"imageTail"');
  const renamed = sent(
    buildCatalogue({
      PLATFORM_B_MODELS_FILE: modelsFile({ platform: { families: { kling: { fields: { lastFrame: { name: 'tailImage' } } } } } }),
    }),
  );
  expect(renamed).toContain('"tailImage"');
  expect(renamed).not.toContain('"imageTail"');
});

describe("B's callback switch name (PLATFORM_B_CALLBACK_SWITCH)", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  });
  afterAll(() => sim.close());

  async function configuredWith(extra: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
    const http = createHttpClient({ connectTimeoutMs: 2000, responseTimeoutMs: 5000 });
    const env = { PLATFORM_B_CALLBACKS: 'manage', PUBLIC_BASE_URL: 'https://gw.example.com', ...extra };
    await platformById('B').worker(env, { simulate: true, simBaseUrl: sim.url }).configurePush!({ http });
    await http.close();
    const puts = sim.requests.filter((r) => r.platform === 'B' && r.method === 'PUT' && r.path === '/v2/callback');
    return puts[puts.length - 1]!.body as Record<string, unknown>;
  }

  test('the inferred name by default, the configured one when set', async () => {
    expect(await configuredWith({})).toMatchObject({ enableVideoGenerateCompleteEvent: true });
    const renamed = await configuredWith({ PLATFORM_B_CALLBACK_SWITCH: 'enableAigcTaskCompleteEvent' });
    expect(renamed).toMatchObject({ enableAigcTaskCompleteEvent: true });
    expect(renamed).not.toHaveProperty('enableVideoGenerateCompleteEvent');
  });
});
