/**
 * platforms/field-pricing.ts: every platform's own request field is classified by what it does to a price, and a
 * field that decides a priced value is either carried into it or, contradicting it, refused.
 */
import { z } from 'zod';
import { PLATFORM_DEFINITIONS } from '../../../platforms';
import { fromPriceEntry, TaskPricing } from '../../../pricing/price-table';
import { catalogue, normalised, refusedParam, type Kind } from '../../support/platform-kit';

/** The object schema inside optional/nullable/default wrappers, or undefined for any other schema. */
function objectShape(schema: z.core.$ZodType): Record<string, z.core.$ZodType> | undefined {
  let s: z.core.$ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.core.$ZodType;
  return s instanceof z.ZodObject ? (s.shape as Record<string, z.core.$ZodType>) : undefined;
}

/** Every field of a platform's request shape, and every key of an object field (`output_config.Duration`). */
function fieldPaths(shape: z.ZodRawShape): string[] {
  return Object.entries(shape).flatMap(([field, schema]) => {
    const inner = objectShape(schema as z.core.$ZodType);
    return inner ? Object.keys(inner).map((key) => `${field}.${key}`) : [field];
  });
}

describe('every platform field is classified by its effect on the price', () => {
  const cases = PLATFORM_DEFINITIONS.flatMap((p) => (['video', 'image'] as Kind[]).map((kind) => [p.id, kind, p] as const));

  test.each(cases)(
    'platform %s, %s: each request field (and each key of an object field) has exactly one classification',
    (_id, kind, p) => {
      // A new pass-through field fails here until platforms/<x>/request-fields.ts says what it does to a price.
      expect(Object.keys(p.fieldPricing[kind]).sort()).toEqual(fieldPaths(p.requestFields[kind]).sort());
    },
  );

  test('the walk sees inside object fields: T video output_config is classified key by key', () => {
    expect(fieldPaths(PLATFORM_DEFINITIONS.find((p) => p.id === 'T')!.requestFields.video)).toEqual(
      expect.arrayContaining([
        'output_config.Duration',
        'output_config.Resolution',
        'output_config.AudioGeneration',
        'output_config.AspectRatio',
      ]),
    );
  });

  test('a "none" classification gives its reason', () => {
    for (const p of PLATFORM_DEFINITIONS)
      for (const table of [p.fieldPricing.video, p.fieldPricing.image])
        for (const c of Object.values(table)) if ('none' in c) expect(c.none.length).toBeGreaterThan(10);
  });
});

const Q2 = { model: 'VendorQ-q2', action: 'text_to_video', prompt: 'a heron' };
/** The prices: VendorQ-q2 at 0.1 CNY/s at 720p, 1.0 CNY/s at 1080p. */
const pricing = new TaskPricing(
  catalogue,
  new Map([
    ['VendorQ-q2', fromPriceEntry({ currency: 'CNY', source: 'test', per_second: { '720p': 0.1, '1080p': 1.0 } })],
    ['GEM-3.0', fromPriceEntry({ currency: 'CNY', source: 'test', per_image: { standard: 0.2, hd: 1.5 } })],
    ['VE3.1', fromPriceEntry({ currency: 'CNY', source: 'test', per_second: { '*': { silent: 0.5, sound: 1 } } })],
  ]),
);
const estimate = (kind: Kind, body: Record<string, unknown>) => pricing.estimateTaskCost(normalised(kind, body).request).cost?.amount;

describe('T: output_config keys are priced or refused', () => {
  test('output_config.Duration/Resolution against duration/resolution: a contradiction is a 400 naming the output_config key', () => {
    expect(refusedParam('video', { ...Q2, duration: 1, resolution: '720P', output_config: { Duration: 10, Resolution: '1080P' } })).toBe(
      'output_config.Duration',
    );
    expect(refusedParam('video', { ...Q2, duration: 10, resolution: '720P', output_config: { Duration: 10, Resolution: '1080P' } })).toBe(
      'output_config.Resolution',
    );
    expect(refusedParam('video', { ...Q2, generate_audio: false, output_config: { AudioGeneration: 'Enabled' } })).toBe(
      'output_config.AudioGeneration',
    );
    expect(refusedParam('video', { ...Q2, ratio: '16:9', output_config: { AspectRatio: '9:16' } })).toBe('output_config.AspectRatio');
  });

  test('agreeing values are accepted (letter case aside); output_config alone is what is priced', () => {
    expect(refusedParam('video', { ...Q2, duration: 10, resolution: '1080p', output_config: { Duration: 10, Resolution: '1080P' } })).toBe(
      undefined,
    );
    const alone = normalised('video', { ...Q2, output_config: { Duration: 10, Resolution: '1080P', AudioGeneration: 'Enabled' } }).request;
    expect([alone.duration, alone.resolution, alone.generate_audio]).toEqual([10, '1080P', true]);
    expect(estimate('video', { ...Q2, output_config: { Duration: 10, Resolution: '1080P' } })).toBe(10_000_000);
    expect(estimate('video', { ...Q2, duration: 1, resolution: '720P' })).toBe(100_000);
  });

  test('an image Resolution is priced as the quality it stands for; one no quality stands for is refused', () => {
    const gem = { model: 'GEM-3.0', prompt: 'a heron' };
    expect(refusedParam('image', { ...gem, quality: 'standard', output_config: { Resolution: '4K' } })).toBe('output_config.Resolution');
    expect(normalised('image', { ...gem, output_config: { Resolution: '4k' } }).request.quality).toBe('hd');
    expect(estimate('image', { ...gem, output_config: { Resolution: '4K' } })).toBe(1_500_000);
    expect(refusedParam('image', { ...gem, output_config: { Resolution: '2K' } })).toBe('output_config.Resolution');
  });
});

describe('B: audio and bgm are priced as sound', () => {
  const ve = { model: 'VE3.1', action: 'text_to_video', prompt: 'a heron', duration: 8 };
  test('audio "true" (or bgm "true") reserves the sound rate; "false" is the silent default', () => {
    expect(estimate('video', ve)).toBe(4_000_000);
    expect(estimate('video', { ...ve, audio: 'true' })).toBe(8_000_000);
    expect(estimate('video', { ...ve, audio: 'false' })).toBe(4_000_000);
    expect(normalised('video', { ...ve, audio: 'true' }).request.generate_audio).toBe(true);
  });
});
