/**
 * The pricing module (pricing/): a task's estimate and final usage and cost, in exact micros, for each way of
 * billing — per second by resolution (with and without sound), per image, per token — and the cases with no
 * price or no charge.
 */
import { buildCatalogue } from '../../../platforms';
import { costJson, estimateTaskCost, finalTaskCost, pricedRequest } from '../../../pricing/cost';
import { micros, type ModelPrice } from '../../../pricing/price';
import { V_DIMENSIONS, V_FPS } from '../../../sim/v/models';

const catalogue = buildCatalogue();
const record = (kind: 'video' | 'image', id: string) => catalogue.find(kind, id)!;

const PER_SECOND: ModelPrice = {
  currency: 'USD',
  source: 'test',
  perSecond: { '720p': { silent: micros(0.1), sound: micros(0.15) }, '1080P': micros(0.25) },
};
const PER_IMAGE: ModelPrice = { currency: 'CNY', source: 'test', perImage: { hd: micros(0.4), '*': micros(0.2) } };
const PER_TOKEN: ModelPrice = {
  currency: 'CNY',
  source: 'test',
  perToken: { perMillion: { silent: micros(15), sound: micros(30) }, tokensPerSecond: { '480p': 9720, '720p': 20592, '1080p': 48960 } },
};

describe('per second by resolution', () => {
  const gv = record('video', 'GV-3.1');

  test("the estimate is seconds × the resolution's rate, case-insensitively, exact in micros", () => {
    const r = estimateTaskCost({ kind: 'video', model: 'GV-3.1', duration: 8, resolution: '1080p' }, gv, PER_SECOND);
    expect(r).toEqual({ usage: { seconds: 8 }, cost: { amount: 2_000_000, currency: 'USD', estimated: true } });
    expect(costJson(r.cost)).toEqual({ amount: 2, currency: 'USD', estimated: true });
  });

  test('sound picks the sound rate; no sound the silent one', () => {
    const silent = estimateTaskCost({ kind: 'video', model: 'GV-3.1', duration: 8, resolution: '720p' }, gv, PER_SECOND);
    const sound = estimateTaskCost(
      { kind: 'video', model: 'GV-3.1', duration: 8, resolution: '720p', generate_audio: true },
      gv,
      PER_SECOND,
    );
    expect(silent.cost!.amount).toBe(800_000);
    expect(sound.cost!.amount).toBe(1_200_000);
  });

  test('a request that leaves the resolution open is estimated at the dearest priced one', () => {
    const r = estimateTaskCost({ kind: 'video', model: 'GV-3.1', duration: 8 }, gv, PER_SECOND);
    expect(r.cost!.amount).toBe(2_000_000);
  });

  test("the final figure uses the seconds the platform reported, else the request's", () => {
    const req = { kind: 'video' as const, model: 'GV-3.1', duration: 8, resolution: '1080p' };
    expect(finalTaskCost(req, gv, PER_SECOND, { seconds: 5 }, 'success')).toEqual({
      usage: { seconds: 5 },
      cost: { amount: 1_250_000, currency: 'USD', estimated: false },
    });
    expect(finalTaskCost(req, gv, PER_SECOND, {}, 'success').cost).toEqual({ amount: 2_000_000, currency: 'USD', estimated: false });
  });
});

describe('per image', () => {
  const nb = record('image', 'I4YG1');

  test("n × the quality's rate, else the size's, else `*`", () => {
    expect(estimateTaskCost({ kind: 'image', model: 'I4YG1', n: 3, quality: 'hd' }, nb, PER_IMAGE)).toEqual({
      usage: { images: 3 },
      cost: { amount: 1_200_000, currency: 'CNY', estimated: true },
    });
    expect(estimateTaskCost({ kind: 'image', model: 'I4YG1', size: '1024x1024' }, nb, PER_IMAGE).cost!.amount).toBe(200_000);
  });

  test('the final figure counts the images the platform reported', () => {
    expect(finalTaskCost({ kind: 'image', model: 'I4YG1', n: 4 }, nb, PER_IMAGE, { images: 2 }, 'success').cost!.amount).toBe(400_000);
  });
});

describe('per token', () => {
  const seedance = record('video', 'vendor-video-1-0-pro-250528');
  const req = { kind: 'video' as const, model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };

  test('the estimate derives the tokens from the seconds and the resolution', () => {
    expect(estimateTaskCost(req, seedance, PER_TOKEN)).toEqual({
      usage: { seconds: 5, tokens: 102_960 },
      cost: { amount: 1_544_400, currency: 'CNY', estimated: true },
    });
  });

  test('the final figure is the tokens the platform reported × the rate (sound rate with sound), rounded to a micro', () => {
    expect(finalTaskCost(req, seedance, PER_TOKEN, { tokens: 244_800 }, 'success')).toEqual({
      usage: { seconds: 5, tokens: 244_800 },
      cost: { amount: 3_672_000, currency: 'CNY', estimated: false },
    });
    expect(finalTaskCost({ ...req, generate_audio: true }, seedance, PER_TOKEN, { tokens: 1 }, 'success').cost!.amount).toBe(30);
    expect(
      finalTaskCost(req, seedance, { ...PER_TOKEN, perToken: { perMillion: micros(0.6) } }, { tokens: 3 }, 'success').cost!.amount,
    ).toBe(2);
  });

  test('without tokens per second the estimate has usage but no cost; the final one is priced from the report', () => {
    const bare: ModelPrice = { ...PER_TOKEN, perToken: { perMillion: micros(15) } };
    expect(estimateTaskCost(req, seedance, bare)).toEqual({ usage: { seconds: 5 }, cost: null });
    expect(finalTaskCost(req, seedance, bare, { tokens: 100_000 }, 'success').cost!.amount).toBe(1_500_000);
  });
});

describe('the estimate is an upper bound of what the platform bills (what a budget reserves)', () => {
  const seedance = record('video', 'vendor-video-1-0-pro-250528');
  /** tokens_per_second as docs/reference/prices.md gives it: each resolution's largest frame. */
  const BOUND: ModelPrice = {
    currency: 'CNY',
    source: 'test',
    perToken: { perMillion: micros(15), tokensPerSecond: { '480p': 9720, '720p': 22560, '1080p': 48960 } },
  };
  /** What Ark bills (the simulator's formula, sim/v/tasks.ts): width × height × 24 fps × seconds / 1024. */
  const billed = (resolution: string, ratio: string, seconds: number) => {
    const [w, h] = V_DIMENSIONS[resolution]![ratio]!;
    return Math.round((w * h * V_FPS * seconds) / 1024);
  };
  const cases = Object.entries(V_DIMENSIONS).flatMap(([resolution, ratios]) =>
    Object.keys(ratios).flatMap((ratio) => [4, 5, 12].map((seconds) => ({ resolution, ratio, seconds }))),
  );

  test.each(cases)('$resolution $ratio $seconds s: final ≤ estimate', ({ resolution, ratio, seconds }) => {
    const req = { kind: 'video' as const, model: 'vendor-video-1-0-pro-250528', duration: seconds, resolution };
    const estimate = estimateTaskCost(req, seedance, BOUND).cost!.amount;
    const final = finalTaskCost(req, seedance, BOUND, { tokens: billed(resolution, ratio, seconds) }, 'success').cost!.amount;
    expect(final).toBeLessThanOrEqual(estimate);
  });

  test('a request that leaves duration and resolution open reserves the most any of its outputs bills', () => {
    const estimate = estimateTaskCost({ kind: 'video', model: 'vendor-video-1-0-pro-250528' }, seedance, BOUND).cost!.amount;
    const most = Math.max(
      ...cases.map(
        ({ resolution, ratio }) =>
          finalTaskCost(
            { kind: 'video', model: 'vendor-video-1-0-pro-250528' },
            seedance,
            BOUND,
            { tokens: billed(resolution, ratio, 12) },
            'success',
          ).cost!.amount,
      ),
    );
    expect(most).toBeLessThanOrEqual(estimate);
  });

  test("the 16:9 figure alone (20592 at 720p) falls short of 1:1, 4:3 and 21:9: why the table takes each resolution's largest frame", () => {
    const req = { kind: 'video' as const, model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };
    const short = estimateTaskCost(req, seedance, { ...BOUND, perToken: { perMillion: micros(15), tokensPerSecond: { '720p': 20592 } } })
      .cost!.amount;
    const over = ['1:1', '4:3', '21:9'].map(
      (ratio) => finalTaskCost(req, seedance, BOUND, { tokens: billed('720p', ratio, 5) }, 'success').cost!.amount,
    );
    for (const final of over) expect(final).toBeGreaterThan(short);
  });
});

describe('no price, no charge', () => {
  const seedance = record('video', 'vendor-video-1-0-pro-250528');
  const req = { kind: 'video' as const, model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };

  test('a model without a price has usage (the tokens the platform reported among it) and a null cost', () => {
    expect(estimateTaskCost(req, seedance, null)).toEqual({ usage: { seconds: 5 }, cost: null });
    expect(finalTaskCost(req, seedance, null, { tokens: 1000 }, 'success')).toEqual({ usage: { seconds: 5, tokens: 1000 }, cost: null });
  });

  test.each(['failed', 'cancelled'] as const)(
    'a %s task whose job the platform does not bill costs zero, final, whatever it reported',
    (outcome) => {
      for (const billed of [undefined, false]) {
        expect(finalTaskCost(req, seedance, PER_TOKEN, { tokens: 244_800 }, outcome, billed)).toEqual({
          usage: { seconds: 0, tokens: 0 },
          cost: { amount: 0, currency: 'CNY', estimated: false },
        });
      }
    },
  );
});

describe('a task that ended without success while its job ran on (billed)', () => {
  const gv = record('video', 'GV-3.1');
  const seedance = record('video', 'vendor-video-1-0-pro-250528');

  test.each(['failed', 'cancelled'] as const)(
    'a %s task whose job could not be stopped costs what the job does, from the request',
    (outcome) => {
      const req = { kind: 'video' as const, model: 'GV-3.1', duration: 8, resolution: '720p' };
      const figure = finalTaskCost(req, gv, PER_SECOND, {}, outcome, true);
      expect(figure).toEqual({ usage: { seconds: 8 }, cost: { amount: 800_000, currency: 'USD', estimated: false } });
      // The figure a budget reserved for it at the start, now final.
      expect(figure.cost!.amount).toBe(estimateTaskCost(req, gv, PER_SECOND).cost!.amount);
    },
  );

  test('what the platform reported before the task ended is used where it says', () => {
    const req = { kind: 'video' as const, model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' };
    expect(finalTaskCost(req, seedance, PER_TOKEN, { tokens: 100_000 }, 'cancelled', true)).toEqual({
      usage: { seconds: 5, tokens: 100_000 },
      cost: { amount: 1_500_000, currency: 'CNY', estimated: false },
    });
  });

  test('a billed image task counts its images; a model without a price stays without a cost', () => {
    expect(finalTaskCost({ kind: 'image', model: 'I4YG1', n: 2 }, record('image', 'I4YG1'), PER_IMAGE, {}, 'cancelled', true)).toEqual({
      usage: { images: 2 },
      cost: { amount: 400_000, currency: 'CNY', estimated: false },
    });
    expect(finalTaskCost({ kind: 'video', model: 'GV-3.1', duration: 8 }, gv, null, {}, 'failed', true)).toEqual({
      usage: { seconds: 8 },
      cost: null,
    });
  });
});

describe('defaults', () => {
  const seedance = record('video', 'vendor-video-1-0-pro-250528');

  test("a duration left open is estimated at the model's longest", () => {
    expect(estimateTaskCost({ kind: 'video', model: 'vendor-video-1-0-pro-250528' }, seedance, null).usage).toEqual({ seconds: 12 });
  });
});

test('pricedRequest keeps only the fields that decide a price', () => {
  expect(
    pricedRequest({ kind: 'video', model: 'm', prompt: 'a fox', duration: 5, resolution: '720p', generate_audio: false, image_url: 'x' }),
  ).toEqual({
    kind: 'video',
    model: 'm',
    duration: 5,
    resolution: '720p',
    generate_audio: false,
  });
});

test('micros are exact and refuse what is not money', () => {
  expect(micros(0.1) + micros(0.2)).toBe(micros(0.3));
  expect(() => micros(-1)).toThrow();
  expect(() => micros(Number.NaN)).toThrow();
  expect(() => micros(0.0000001)).toThrow(/6 decimal places/);
  // Whatever the magnitude: a 7th decimal place is refused, never rounded away.
  expect(() => micros(12.3456789)).toThrow(/6 decimal places/);
  expect(() => micros(123456.0000001)).toThrow(/6 decimal places/);
  expect(micros(12.345678)).toBe(12_345_678);
  expect(micros(999_999_999.999999)).toBe(999_999_999_999_999);
  expect(micros(1.5e3)).toBe(1_500_000_000);
});

describe("the offline tier (V's service_tier flex): its own price, never the online one", () => {
  const v15 = record('video', 'vendor-video-1-5-pro-251215');
  const WITH_FLEX: ModelPrice = {
    ...PER_TOKEN,
    tiers: {
      flex: {
        source: 'offline test',
        perToken: { perMillion: { silent: micros(7.5), sound: micros(15) }, tokensPerSecond: { '720p': 20592 } },
      },
    },
  };
  const flex = { kind: 'video', model: 'vendor-video-1-5-pro-251215', duration: 5, resolution: '720p', service_tier: 'flex' } as const;

  test('a flex request is reserved and settled at the flex rates', () => {
    expect(estimateTaskCost(flex, v15, WITH_FLEX).cost).toEqual({ amount: Math.round(20592 * 5 * 7.5), currency: 'CNY', estimated: true });
    expect(finalTaskCost(flex, v15, WITH_FLEX, { tokens: 100_000 }, 'success').cost).toEqual({
      amount: 750_000,
      currency: 'CNY',
      estimated: false,
    });
    // The same request online: the online rate.
    expect(finalTaskCost({ ...flex, service_tier: 'standard' }, v15, WITH_FLEX, { tokens: 100_000 }, 'success').cost!.amount).toBe(
      1_500_000,
    );
  });

  test('a flex request on a price without a flex tier has no price at all (null), never the online figure', () => {
    expect(estimateTaskCost(flex, v15, PER_TOKEN).cost).toBeNull();
    expect(finalTaskCost(flex, v15, PER_TOKEN, { tokens: 100_000 }, 'success').cost).toBeNull();
  });

  test('the tier is one of the price-deciding fields a task keeps', () => {
    expect(pricedRequest({ ...flex, prompt: 'x' })).toEqual(flex);
  });
});
