/**
 * `GET /v1/models` and `/v1/models/:id` show each model's `price` (null when none is known), over real HTTP:
 * the platforms' published prices, and PRICES_FILE's additions, replacements and withdrawals; the answers match
 * the OpenAPI document's Model schema.
 */
import { modelListSchema, modelSchema } from '../../../../api/response-schemas';
import { buildCatalogue } from '../../../../platforms';
import { writeJsonFile } from '../../../support/json-file';
import { useTestApi } from '../../../support/test-api';
import { loadTaskPricing } from '../../../../tasks/billing';

describe('published prices', () => {
  const t = useTestApi();

  test('a model with a public price shows it with its currency and source; one without shows null', async () => {
    const r = await t.api.get('/v1/models');
    expect(r.status).toBe(200);
    modelListSchema.parse(r.body);
    const byId = new Map((r.body.data as { id: string; price: unknown }[]).map((m) => [m.id, m.price]));
    expect(byId.get('VQ1')).toEqual({
      currency: 'CNY',
      source: 'https://cloud.baidu.com/doc/VOD/s/dm64ry4hl',
      per_second: { '1080p': 0.5 },
    });
    expect(byId.get('V20')).toEqual({
      currency: 'CNY',
      source: 'https://cloud.baidu.com/doc/VOD/s/dm64ry4hl',
      per_second: { '360p': 0.1575, '720p': 0.3125 },
    });
    expect(byId.get('vendor-video-1-0-pro-250528')).toBeNull();
    expect(byId.get('GV-3.1')).toBeNull();
    expect([...byId.values()].every((p) => p !== undefined)).toBe(true);
  });
});

describe('PRICES_FILE', () => {
  const file = writeJsonFile({
    'vendor-video-1-0-pro-250528': {
      currency: 'CNY',
      source: 'contract 2026-11',
      per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } },
    },
    VQ1: null,
  });
  const t = useTestApi({ deps: { pricing: loadTaskPricing(buildCatalogue(), { PRICES_FILE: file }) } });

  test('adds a price to a model without one and withdraws a published one', async () => {
    const v = await t.api.get('/v1/models/vendor-video-1-0-pro-250528');
    expect(v.status).toBe(200);
    expect(modelSchema.parse(v.body).price).toEqual({
      currency: 'CNY',
      source: 'contract 2026-11',
      per_token: { per_million: 15, tokens_per_second: { '720p': 20592 } },
    });
    const b = await t.api.get('/v1/models/VQ1');
    expect(b.body.price).toBeNull();
  });
});
