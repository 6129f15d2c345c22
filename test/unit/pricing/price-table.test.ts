/**
 * Prices as data: each platform's published prices (platforms/<x>/prices.ts) with their currency and source,
 * and PRICES_FILE over them — adding, replacing and withdrawing (null) a price, and every mistake a start-up
 * error naming the variable and the entry.
 */
import { buildCatalogue } from '../../../platforms';
import { micros } from '../../../pricing/price';
import { priceJson } from '../../../pricing/price-table';
import { writeJsonFile } from '../../support/json-file';
import { loadTaskPricing } from '../../../tasks/billing';

const catalogue = buildCatalogue();

describe('published prices', () => {
  const pricing = loadTaskPricing(catalogue, {});

  test("B's VQ1 and V20 carry the official page's per-clip prices, per second, in CNY", () => {
    expect(pricing.priceOf('VQ1')).toEqual({
      currency: 'CNY',
      source: 'https://cloud.baidu.com/doc/VOD/s/dm64ry4hl',
      perSecond: { '1080p': micros(0.5) },
    });
    // 4 s at 720p: the page's 1.25 CNY clip.
    expect(pricing.estimateTaskCost({ kind: 'video', model: 'V20', duration: 4, resolution: '720p' }).cost).toEqual({
      amount: 1_250_000,
      currency: 'CNY',
      estimated: true,
    });
  });

  test('a model no public source prices has none: its tasks have usage and a null cost', () => {
    expect(pricing.priceOf('vendor-video-1-0-pro-250528')).toBeNull();
    expect(pricing.priceOf('GV-3.1')).toBeNull();
    expect(pricing.estimateTaskCost({ kind: 'video', model: 'GV-3.1', duration: 8 })).toEqual({ usage: { seconds: 8 }, cost: null });
  });

  test('every price names its source and a known currency', () => {
    for (const e of catalogue.entries) {
      const p = pricing.priceOf(e.id);
      if (p) expect(p.source).toMatch(/^https:\/\//);
    }
  });
});

describe('PRICES_FILE', () => {
  test('adds a price, replaces one and withdraws one with null', () => {
    const file = writeJsonFile({
      'vendor-video-1-0-pro-250528': {
        currency: 'CNY',
        source: 'contract 2026-11',
        per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } },
      },
      V20: { currency: 'USD', source: 'negotiated', per_second: { '*': 0.05 } },
      VQ1: null,
    });
    const pricing = loadTaskPricing(catalogue, { PRICES_FILE: file });
    expect(
      pricing.finalTaskCost(
        { kind: 'video', model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' },
        { tokens: 244_800 },
        'success',
      ).cost,
    ).toEqual({
      amount: 3_672_000,
      currency: 'CNY',
      estimated: false,
    });
    expect(pricing.estimateTaskCost({ kind: 'video', model: 'V20', duration: 4, resolution: '360p' }).cost).toEqual({
      amount: 200_000,
      currency: 'USD',
      estimated: true,
    });
    expect(pricing.priceOf('VQ1')).toBeNull();
    expect(pricing.estimateTaskCost({ kind: 'video', model: 'VQ1', duration: 5 }).cost).toBeNull();
    // Untouched entries keep the published price.
    expect(pricing.priceOf('VQ1C')?.currency).toBe('CNY');
  });

  test('the JSON shown for a price is the shape the file takes', () => {
    const entry = { currency: 'USD', source: 'x', per_second: { '720p': { silent: 0.1, sound: 0.15 } }, per_image: { '*': 0.02 } };
    const pricing = loadTaskPricing(catalogue, { PRICES_FILE: writeJsonFile({ 'GV-3.1': entry }) });
    expect(priceJson(pricing.priceOf('GV-3.1')!)).toEqual(entry);
  });

  test("a tier's price (V's offline tier): read, shown in the file's shape, and what a flex task costs", () => {
    const entry = {
      currency: 'CNY',
      source: 'contract',
      per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } },
      tiers: { flex: { source: 'contract, offline', per_token: { per_million: 7.5, tokens_per_second: { '720p': 20592 } } } },
    };
    const pricing = loadTaskPricing(catalogue, { PRICES_FILE: writeJsonFile({ 'vendor-video-1-0-pro-250528': entry }) });
    expect(priceJson(pricing.priceOf('vendor-video-1-0-pro-250528')!)).toEqual(entry);
    const request = { kind: 'video', model: 'vendor-video-1-0-pro-250528', duration: 5, resolution: '720p' } as const;
    expect(pricing.finalTaskCost({ ...request, service_tier: 'flex' }, { tokens: 200_000 }, 'success').cost!.amount).toBe(1_500_000);
    expect(pricing.finalTaskCost(request, { tokens: 200_000 }, 'success').cost!.amount).toBe(3_000_000);
  });

  test.each([
    [{ 'GV-3.1': { currency: 'USD', source: 'x', per_second: { '*': 1 }, tiers: { flex: {} } } }, /GV-3\.1\.tiers\.flex: give per_second/],
    [
      { 'GV-3.1': { currency: 'USD', source: 'x', per_second: { '*': 1 }, tiers: { night: { per_second: { '*': 1 } } } } },
      /GV-3\.1\.tiers: .*night/,
    ],
    [{ 'GV-3.1': { currency: 'EUR', source: 'x', per_second: { '*': 1 } } }, /PRICES_FILE: .*GV-3\.1\.currency/],
    [
      { 'GV-3.1': { currency: 'USD', source: 'x', per_second: { '720p': -1 } } },
      /GV-3\.1\.per_second\.720p: must be a non-negative amount/,
    ],
    [{ 'GV-3.1': { currency: 'USD', source: 'x', per_second: { '720p': 0.0000001 } } }, /at most 6 decimal places/],
    [{ 'GV-3.1': { currency: 'USD', source: 'x' } }, /GV-3\.1: give per_second, per_image or per_token/],
    [{ 'GV-3.1': { currency: 'USD', per_second: { '*': 1 } } }, /GV-3\.1\.source/],
    [{ 'GV-3.1': { currency: 'USD', source: 'x', per_minute: 1 } }, /GV-3\.1: .*per_minute/],
    [{ 'no-such-model': null }, /PRICES_FILE: .*no-such-model: no such model/],
    ['{ not json', /PRICES_FILE: .*JSON/],
  ])('refuses %j at start-up, naming the entry', (json, message) => {
    expect(() => loadTaskPricing(catalogue, { PRICES_FILE: writeJsonFile(json) })).toThrow(message);
  });
});

test('TaskPricing takes a validated request as the API starts it (every other field ignored), and refuses an unknown model', () => {
  const pricing = loadTaskPricing(catalogue, {});
  const request = {
    kind: 'video' as const,
    model: 'VQ1',
    prompt: 'a fox',
    duration: 5,
    resolution: '1080p',
    image_url: 'https://x.test/a.png',
  };
  expect(pricing.estimateTaskCost(request)).toEqual({
    usage: { seconds: 5 },
    cost: { amount: 2_500_000, currency: 'CNY', estimated: true },
  });
  expect(pricing.finalTaskCost(request, { seconds: 5 }, 'success').cost).toEqual({ amount: 2_500_000, currency: 'CNY', estimated: false });
  expect(pricing.finalTaskCost(request, {}, 'failed').cost).toEqual({ amount: 0, currency: 'CNY', estimated: false });
  expect(() => pricing.estimateTaskCost({ kind: 'video', model: 'no-such-model' })).toThrow(/no video model no-such-model/);
});
