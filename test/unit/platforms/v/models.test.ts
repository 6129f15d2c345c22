/**
 * platforms/v/models.ts and models-file.ts: the public-id → upstream-id mapping, and PLATFORM_V_MODELS_FILE
 * overriding it as deployment data.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../../core/config';
import { buildCatalogue } from '../../../../platforms';
import { validateGeneration } from '../../../../platforms/validation';
import { createPlatformV } from '../../../../platforms/v/adapter';
import { V_MODELS } from '../../../../platforms/v/models';
import { catalogue, ENABLED } from '../../../support/platform-kit';
import { fakeV, I2V, KEY, NOW, SETTINGS, V10, V15, V20 } from '../../../support/platforms/v';

describe('PLATFORM_V_MODELS_FILE: the public-id → upstream-id mapping is deployment data', () => {
  const dir = mkdtempSync(join(tmpdir(), 'v-models-'));
  const file = (name: string, content: string) => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };

  test('unset: the Volcengine ids', () => {
    expect(buildCatalogue({}).entries.filter((e) => e.platform === 'V')).toEqual(V_MODELS);
    expect(catalogue.find('video', V20)!.upstream.model).toBe('doubao-seedance-2-0-260128');
  });

  test('overrides ids (BytePlus) and leaves a model out with null; the catalogue and the adapter follow', async () => {
    const env = {
      PLATFORM_V_MODELS_FILE: file(
        'byteplus.json',
        JSON.stringify({ [V20]: 'dreamina-seedance-2-0-260128', [V15]: 'seedance-1-5-pro-251215', [I2V]: null }),
      ),
    };
    const byteplus = buildCatalogue(env);
    expect(byteplus.find('video', V20)!.upstream.model).toBe('dreamina-seedance-2-0-260128');
    expect(byteplus.find('video', V15)!.upstream.model).toBe('seedance-1-5-pro-251215');
    expect(byteplus.find('video', V10)!.upstream.model).toBe('doubao-seedance-1-0-pro-250528');
    expect(byteplus.find('video', I2V)).toBeUndefined();

    const { http, sent } = fakeV(() => ({ body: { id: 'cgt-1' } }));
    const { entry, request } = validateGeneration(byteplus, ENABLED, 'video', { model: V20, prompt: 'p', duration: 5 });
    await createPlatformV(SETTINGS, { http, now: () => NOW }).submit(entry, request, { taskId: 't', dedupKey: KEY, deadlineAt: NOW });
    expect(sent[0]!.body.model).toBe('dreamina-seedance-2-0-260128');
  });

  test.each([
    ['not JSON', '{"a":', /is not JSON/],
    ['an unknown public id', JSON.stringify({ 'vendor-video-9': 'x' }), /vendor-video-9: not a platform V model/],
    ['a value that is no model id', JSON.stringify({ [V20]: 'has spaces' }), /must be a model or endpoint id/],
    ['a value of the wrong type', JSON.stringify({ [V20]: 3 }), /vendor-video-2-0-260128/],
  ])('%s → a start-up error naming PLATFORM_V_MODELS_FILE', (_name, content, why) => {
    const env = { PLATFORM_V_MODELS_FILE: file(`bad-${Math.random()}.json`, content) };
    expect(() => buildCatalogue(env)).toThrow(ConfigError);
    expect(() => buildCatalogue(env)).toThrow(/PLATFORM_V_MODELS_FILE/);
    expect(() => buildCatalogue(env)).toThrow(why);
  });

  test('a file that cannot be read → a start-up error naming the variable', () => {
    expect(() => buildCatalogue({ PLATFORM_V_MODELS_FILE: join(dir, 'missing.json') })).toThrow(
      /PLATFORM_V_MODELS_FILE: cannot read .*missing\.json: ENOENT/,
    );
  });
});
