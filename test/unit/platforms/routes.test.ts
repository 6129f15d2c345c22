/**
 * Routes as data (platforms/routes.ts, default-routes.ts, routes-file.ts): the shipped pairs resolve against the
 * catalogue, ROUTES_FILE adds, changes and removes routes, every mistake stops the start naming the entry, and what
 * a route accepts is every value some member takes.
 */
import { buildCatalogue } from '../../../platforms';
import { DEFAULT_ROUTES } from '../../../platforms/default-routes';
import { routeLimits } from '../../../platforms/routes';
import { loadRoutes, parseRoutesFile, routeTableOf } from '../../../platforms/routes-file';
import { writeJsonFile } from '../../support/json-file';

const catalogue = buildCatalogue();
const ALL = new Set(['T', 'B', 'V']);

/** The ConfigError message loading `file` as ROUTES_FILE stops the start with. */
function startError(file: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadRoutes(buildCatalogue(env), { ...env, ROUTES_FILE: writeJsonFile(file, 'routes.json') });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the routes file was accepted');
}

describe('the shipped routes', () => {
  test('the pairs T and B both document, T first: kling-2.1, hailuo-2.3, veo-3.1, veo-3.1-fast, vidu-q2', () => {
    const table = routeTableOf(catalogue);
    expect(table.routes.map((r) => [r.name, r.policy, r.members.map((m) => `${m.entry.platform}:${m.entry.id}`)])).toEqual([
      ['kling-2.1', 'priority', ['T:VendorK-2.1', 'B:K21']],
      ['hailuo-2.3', 'priority', ['T:VendorH-2.3', 'B:H23']],
      ['veo-3.1', 'priority', ['T:GV-3.1', 'B:VE3.1']],
      ['veo-3.1-fast', 'priority', ['T:GV-3.1-fast', 'B:VE3.1F']],
      ['vidu-q2', 'priority', ['T:VendorQ-q2', 'B:VQ2']],
    ]);
    // Every member says why it is the route's vendor model, with the catalogues' evidence tags.
    for (const spec of Object.values(DEFAULT_ROUTES))
      for (const m of spec.members) expect([m.model, m.evidence]).toEqual([m.model, expect.stringMatching(/\[(OFF|INF)\]/)]);
  });

  test("a member a models file withdrew is left out of its route (a deployment's own choice, not a mistake)", () => {
    const env = { PLATFORM_T_MODELS_FILE: writeJsonFile({ models: { 'VendorH-2.3': null } }) };
    const table = loadRoutes(buildCatalogue(env), env);
    expect(table.find('video', 'hailuo-2.3', ALL)?.members.map((m) => m.entry.id)).toEqual(['H23']);
  });

  test('only the members on enabled platforms; a route with none is not offered', () => {
    const table = routeTableOf(catalogue);
    expect(table.find('video', 'kling-2.1', new Set(['B']))?.members.map((m) => m.entry.id)).toEqual(['K21']);
    expect(table.find('video', 'kling-2.1', new Set(['V']))).toBeUndefined();
    expect(table.available(new Set(['V']))).toEqual([]);
    // A route is found for its own kind only.
    expect(table.find('image', 'kling-2.1', ALL)).toBeUndefined();
  });

  test('what a route accepts: every value some member takes (veo-3.1: GV-3.1 takes 8 s at 720P/1080P, VE3.1 4, 6, 8 s up to 4k)', () => {
    const limits = routeLimits(routeTableOf(catalogue).find('video', 'veo-3.1', ALL)!);
    expect(limits).toMatchObject({
      id: 'veo-3.1',
      kind: 'video',
      durations: { values: [4, 6, 8] },
      resolutions: ['720P', '1080P', '4k'],
      ratios: ['16:9', '9:16'],
    });
    expect(limits.capabilities).toEqual(expect.arrayContaining(['text_to_video', 'image_to_video', 'sound']));
    // A contiguous union is a range: Vidu Q2 is 1 to 10 s on both.
    expect(routeLimits(routeTableOf(catalogue).find('video', 'vidu-q2', ALL)!).durations).toEqual({ min: 1, max: 10 });
  });
});

describe('ROUTES_FILE', () => {
  test('adds a route, replaces one wholesale and removes one', () => {
    const file = parseRoutesFile({
      routes: {
        'seedance-pro': {
          policy: 'weighted',
          members: [{ model: 'vendor-video-1-0-pro-250528', weight: 3 }, { model: 'VQ2' }],
        },
        'kling-2.1': { policy: 'cheapest', members: [{ model: 'K21' }, { model: 'VendorK-2.1' }] },
        'vidu-q2': null,
      },
    });
    const table = routeTableOf(catalogue, file);
    expect(table.find('video', 'vidu-q2', ALL)).toBeUndefined();
    expect(table.find('video', 'kling-2.1', ALL)).toMatchObject({
      policy: 'cheapest',
      members: [{ entry: { id: 'K21' } }, { entry: { id: 'VendorK-2.1' } }],
    });
    expect(table.find('video', 'seedance-pro', ALL)).toMatchObject({
      kind: 'video',
      policy: 'weighted',
      members: [
        { entry: { id: 'vendor-video-1-0-pro-250528', platform: 'V' }, weight: 3 },
        { entry: { id: 'VQ2', platform: 'B' }, weight: 1 },
      ],
    });
    expect(table.has('hailuo-2.3')).toBe(true);
  });

  test('an image route', () => {
    const table = routeTableOf(
      catalogue,
      parseRoutesFile({ routes: { 'img-any': { kind: 'image', members: [{ model: 'NB' }, { model: 'GEM-2.5' }] } } }),
    );
    expect(table.find('image', 'img-any', ALL)?.members.map((m) => m.entry.platform)).toEqual(['B', 'T']);
    expect(table.find('video', 'img-any', ALL)).toBeUndefined();
  });

  test.each([
    [
      'a model the catalogue lacks',
      { routes: { x: { members: [{ model: 'K99' }, { model: 'K21' }] } } },
      /routes\.x\.members\.0\.model: no video model 'K99'/,
    ],
    [
      'a model of the other kind',
      { routes: { x: { kind: 'image', members: [{ model: 'K21' }, { model: 'NB' }] } } },
      /routes\.x\.members\.0\.model: no image model 'K21'/,
    ],
    [
      'a member twice',
      { routes: { x: { members: [{ model: 'K21' }, { model: 'K21' }] } } },
      /routes\.x\.members\.1\.model: 'K21' is already a member/,
    ],
    ['one member', { routes: { x: { members: [{ model: 'K21' }] } } }, /routes\.x\.members: a route needs at least two members/],
    [
      'a name that is a model id',
      { routes: { GV31: { members: [{ model: 'K21' }, { model: 'VQ2' }] }, 'GV-3.1': { members: [{ model: 'K21' }, { model: 'VQ2' }] } } },
      /routes\.GV-3\.1: 'GV-3\.1' is a catalogue model's id/,
    ],
    [
      'a name with a space',
      { routes: { 'a b': { members: [{ model: 'K21' }, { model: 'VQ2' }] } } },
      /routes\.a b: a route name is 1 to 128/,
    ],
    ['an unknown policy', { routes: { x: { policy: 'fastest', members: [{ model: 'K21' }, { model: 'VQ2' }] } } }, /routes\.x\.policy/],
    ['an unknown field', { routes: { x: { members: [{ model: 'K21', price: 1 }, { model: 'VQ2' }] } } }, /routes\.x\.members\.0/],
    [
      'a weight of zero',
      { routes: { x: { policy: 'weighted', members: [{ model: 'K21', weight: 0 }, { model: 'VQ2' }] } } },
      /routes\.x\.members\.0\.weight/,
    ],
    ['removing a route that does not exist', { routes: { 'kling-2.2': null } }, /routes\.kling-2\.2: removes a route that does not exist/],
    ['no routes object', { models: {} }, /\(file\)|routes/],
    ['text that is not JSON', 'not json', /ROUTES_FILE: .*routes\.json: /],
  ])('%s stops the start, naming ROUTES_FILE and the entry', (_what, file, message) => {
    const got = startError(file);
    expect(got).toMatch(/ROUTES_FILE: /);
    expect(got).toMatch(message);
  });

  test('a file that cannot be read stops the start naming it', () => {
    expect(() => loadRoutes(catalogue, { ROUTES_FILE: '/nonexistent/routes.json' })).toThrow(
      /ROUTES_FILE: \/nonexistent\/routes\.json: ENOENT/,
    );
  });
});
