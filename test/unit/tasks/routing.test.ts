/**
 * A routed task at its start (tasks/routing.ts): the one request checked against each member, the members a
 * budget cannot count skipped, the order of the route's policy, and the dearest member for the reservation.
 */
import { buildCatalogue } from '../../../platforms';
import { parseRoutesFile, routeTableOf } from '../../../platforms/routes-file';
import type { ApiKey } from '../../../keys/api-keys';
import { loadTaskPricing } from '../../../tasks/billing';
import { TaskRefused } from '../../../tasks/refusal';
import { TaskRouting } from '../../../tasks/routing';
import { STRICT_INPUT_URLS } from '../../../platforms/request';
import { parseRequestBody } from '../../../tasks/validation';
import { writeJsonFile } from '../../support/json-file';
import { thrownBy } from '../../support/refusal';

const catalogue = buildCatalogue();
const ALL = new Set(['T', 'B', 'V']);
const key: ApiKey = { id: 'k', digest: Buffer.alloc(32) };
const budgeted = (allowUnpriced = false): ApiKey => ({
  ...key,
  budget: { micros: 100_000_000, currency: 'CNY', period: 'month' },
  allowUnpriced,
});

/** Prices in CNY per second: T's Hailuo 2.3 dearer than B's. */
const PRICES = {
  'VendorH-2.3': { currency: 'CNY', source: 'test', per_second: { '*': 0.5 } },
  H23: { currency: 'CNY', source: 'test', per_second: { '*': 0.3 } },
};
const pricingWith = (prices: Record<string, unknown>) => loadTaskPricing(catalogue, { PRICES_FILE: writeJsonFile(prices) });

function routingOf(file: Record<string, unknown> = {}, prices: Record<string, unknown> = PRICES, random = () => 0.5) {
  return new TaskRouting(routeTableOf(catalogue, parseRoutesFile({ routes: file })), catalogue, ALL, pricingWith(prices), random);
}

/** The route's choice for a video request body. */
function choose(routing: TaskRouting, body: Record<string, unknown>, k: ApiKey = key) {
  const parsed = parseRequestBody('video', body, STRICT_INPUT_URLS);
  const route = routing.find('video', parsed.model)!;
  return routing.choose(routing.validate(route, parsed), k);
}

const refusal = (fn: () => unknown): TaskRefused => thrownBy(fn, TaskRefused);

const order = (r: ReturnType<typeof choose>) => r.candidates.map((c) => c.entry.id);

describe('validation against each member', () => {
  test('a request every member takes: both, in the route’s order, each with its own rules’ request', () => {
    const r = choose(routingOf(), { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'a lighthouse', duration: 6 });
    expect(order(r)).toEqual(['VendorH-2.3', 'H23']);
    expect(r.candidates.map((c) => c.request.model)).toEqual(['VendorH-2.3', 'H23']);
    expect(r.skipped).toEqual([]);
  });

  test('a duration only B allows (Veo 4 s): B alone, T skipped naming the field', () => {
    const r = choose(routingOf(), { model: 'veo-3.1', action: 'text_to_video', prompt: 'a heron', duration: 4 });
    expect(order(r)).toEqual(['VE3.1']);
    expect(r.skipped).toEqual([
      { model: 'GV-3.1', platform: 'T', code: 'invalid_value', param: 'duration', message: expect.stringContaining('GV-3.1') },
    ]);
  });

  test('a field only one platform carries: its member alone (B’s image on kling-2.1)', () => {
    const r = choose(routingOf(), { model: 'kling-2.1', prompt: 'a cat', duration: 5, image: { imageUrl: 'https://example.com/cat.png' } });
    expect(order(r)).toEqual(['K21']);
    expect(r.skipped).toMatchObject([{ model: 'VendorK-2.1', param: 'image', code: 'unsupported_parameter' }]);
  });

  test('a request no member takes: the first member’s 400, naming its field', () => {
    const err = refusal(() => choose(routingOf(), { model: 'veo-3.1', action: 'text_to_video', prompt: 'a heron', duration: 5 }));
    expect(err.kind).toBe('invalid_request');
    expect(err.details).toMatchObject({ param: 'duration', code: 'invalid_value' });
    expect(err.message).toMatch(/^duration 5 is not supported by GV-3\.1.*no other member of the route 'veo-3\.1'/);
  });
});

describe('the policies', () => {
  test('priority: as written; the reservation at the dearest member (T), whichever serves', () => {
    const r = choose(routingOf(), { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 });
    expect(order(r)).toEqual(['VendorH-2.3', 'H23']);
    expect(r.reserveAt.entry.id).toBe('VendorH-2.3');
    expect(r.reserveAt.cost).toMatchObject({ amount: 3_000_000, currency: 'CNY' });
  });

  test('cheapest: by each member’s estimate (B first here); the reservation still the dearest; unpriced members last', () => {
    const routing = routingOf({ 'hailuo-2.3': { policy: 'cheapest', members: [{ model: 'VendorH-2.3' }, { model: 'H23' }] } });
    const r = choose(routing, { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 });
    expect(order(r)).toEqual(['H23', 'VendorH-2.3']);
    expect(r.reserveAt.entry.id).toBe('VendorH-2.3');
    const unpricedB = routingOf(
      { 'hailuo-2.3': { policy: 'cheapest', members: [{ model: 'H23' }, { model: 'VendorH-2.3' }] } },
      { 'VendorH-2.3': PRICES['VendorH-2.3'] },
    );
    expect(order(choose(unpricedB, { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 }))).toEqual([
      'VendorH-2.3',
      'H23',
    ]);
  });

  test('cheapest: equal prices keep the written order', () => {
    const same = { 'VendorH-2.3': PRICES.H23, H23: PRICES.H23 };
    const routing = routingOf({ 'hailuo-2.3': { policy: 'cheapest', members: [{ model: 'H23' }, { model: 'VendorH-2.3' }] } }, same);
    expect(order(choose(routing, { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 }))).toEqual([
      'H23',
      'VendorH-2.3',
    ]);
  });

  test('weighted: each draw by weight (a member of weight 9 comes first for most draws)', () => {
    const file = { 'hailuo-2.3': { policy: 'weighted', members: [{ model: 'VendorH-2.3' }, { model: 'H23', weight: 9 }] } };
    let seed = 1;
    // A fixed sequence of draws in [0, 1): the same on every run.
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const routing = routingOf(file, PRICES, random);
    const firsts = Array.from(
      { length: 200 },
      () => order(choose(routing, { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 }))[0],
    );
    const bFirst = firsts.filter((m) => m === 'H23').length;
    expect(bFirst).toBeGreaterThan(150);
    expect(bFirst).toBeLessThan(200);
  });
});

describe('budgets', () => {
  test('a budgeted key without allow_unpriced: unpriced members skipped (unpriced_model); with allow_unpriced they stay', () => {
    const onlyT = routingOf({}, { 'VendorH-2.3': PRICES['VendorH-2.3'] });
    const body = { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 };
    const r = choose(onlyT, body, budgeted());
    expect(order(r)).toEqual(['VendorH-2.3']);
    expect(r.skipped).toMatchObject([{ model: 'H23', code: 'unpriced_model', param: 'model' }]);
    expect(order(choose(onlyT, body, budgeted(true)))).toEqual(['VendorH-2.3', 'H23']);
  });

  test('a budgeted key and no member priced in its currency: 402 unpriced_model naming the route', () => {
    const err = refusal(() =>
      choose(routingOf({}, {}), { model: 'hailuo-2.3', action: 'text_to_video', prompt: 'p', duration: 6 }, budgeted()),
    );
    expect(err.kind).toBe('payment_required');
    expect(err.details).toMatchObject({ param: 'model', code: 'unpriced_model' });
    expect(err.message).toMatch(/route 'hailuo-2\.3'/);
  });

  test('members priced in two currencies stop the start: a route compares and reserves its members’ prices', () => {
    const usd = { ...PRICES, H23: { ...PRICES.H23, currency: 'USD' } };
    expect(() => routingOf({}, usd)).toThrow(/ROUTES_FILE: route hailuo-2\.3: its members are priced in CNY and USD/);
  });
});
