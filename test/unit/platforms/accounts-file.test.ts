/**
 * PLATFORM_<X>_ACCOUNTS_FILE (platforms/accounts-file.ts) and platform V's accounts (platforms/v/config.ts): the
 * accounts a worker reads, and start-up errors that name the variable, the entry and the field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseAccounts } from '../../../platforms/accounts-file';
import { bWorker } from '../../../platforms/b/config';
import { tWorker } from '../../../platforms/t/config';
import { vWorker } from '../../../platforms/v/config';

const creds = z.object({ api_key: z.string().min(1), base_url: z.url() });
const V = 'PLATFORM_V_ACCOUNTS_FILE';

describe('parseAccounts', () => {
  test('reads ids, credentials, weights (default 1) and models', () => {
    const accounts = parseAccounts(
      V,
      JSON.stringify([
        { id: 'main', api_key: 'k1', base_url: 'https://ark.example/api/v3', weight: 3 },
        { id: 'spare', api_key: 'k2', base_url: 'https://ark.example/api/v3', models: ['vendor-video-1-0-pro-250528'] },
      ]),
      creds,
    );
    expect(accounts).toEqual([
      { id: 'main', api_key: 'k1', base_url: 'https://ark.example/api/v3', weight: 3 },
      { id: 'spare', api_key: 'k2', base_url: 'https://ark.example/api/v3', weight: 1, models: ['vendor-video-1-0-pro-250528'] },
    ]);
  });

  test.each([
    ['not JSON', '[{', /PLATFORM_V_ACCOUNTS_FILE: not valid JSON/],
    ['not an array', '{}', /PLATFORM_V_ACCOUNTS_FILE: must be a JSON array of at least one account/],
    ['an empty array', '[]', /PLATFORM_V_ACCOUNTS_FILE: must be a JSON array of at least one account/],
    ['a missing credential', '[{"id":"a","base_url":"https://x.test"}]', /PLATFORM_V_ACCOUNTS_FILE: entry 0 \(id 'a'\): api_key:/],
    ['a bad id', '[{"id":"a b","api_key":"k","base_url":"https://x.test"}]', /entry 0 \(id 'a b'\): id: must be 1 to 64 letters/],
    [
      'a zero weight',
      '[{"id":"a","api_key":"k","base_url":"https://x.test","weight":0}]',
      /entry 0 \(id 'a'\): weight: must be a positive number/,
    ],
    [
      'an unknown field',
      '[{"id":"a","api_key":"k","base_url":"https://x.test","apikey":"k"}]',
      /entry 0 \(id 'a'\): \(entry\): Unrecognized key: "apikey"/,
    ],
    [
      'a repeated id',
      '[{"id":"a","api_key":"k","base_url":"https://x.test"},{"id":"a","api_key":"k2","base_url":"https://x.test"}]',
      /entry 1 \(id 'a'\): id 'a' is used by an earlier entry/,
    ],
  ])('%s is refused naming the variable, entry and field', (_name, text, message) => {
    expect(() => parseAccounts(V, text, creds)).toThrow(message);
  });
});

describe("platform V's accounts", () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-'));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const opts = { simulate: false, simBaseUrl: 'http://127.0.0.1:1' };

  test('an accounts file gives one worker account per entry', () => {
    const path = file('two.json', [
      { id: 'a', api_key: 'ka', base_url: 'https://ark.example/api/v3' },
      { id: 'b', api_key: 'kb', base_url: 'https://ark.example/api/v3', weight: 2 },
    ]);
    const w = vWorker({ [V]: path }, opts);
    expect(w.accounts?.map((a) => [a.id, a.weight])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(w.endpoint).not.toContain('ka');
    expect(w.endpoint).toContain('accounts a, b');
  });

  test('the single-account variables remain a one-account shorthand (no account list)', () => {
    const w = vWorker({ PLATFORM_V_BASE_URL: 'https://ark.example/api/v3', PLATFORM_V_API_KEY: 'k' }, opts);
    expect(w.accounts).toBeUndefined();
  });

  test('both forms at once are refused', () => {
    const path = file('one.json', [{ id: 'a', api_key: 'ka', base_url: 'https://ark.example/api/v3' }]);
    expect(() => vWorker({ [V]: path, PLATFORM_V_API_KEY: 'k' }, opts)).toThrow(/PLATFORM_V_ACCOUNTS_FILE: set either/);
  });

  test('an unreadable file is refused naming the variable', () => {
    expect(() => vWorker({ [V]: join(dir, 'missing.json') }, opts)).toThrow(
      /PLATFORM_V_ACCOUNTS_FILE: cannot read .*missing\.json: ENOENT/,
    );
  });

  test('a bad entry is refused naming the entry and the field, never echoing a key', () => {
    const path = file('bad.json', [{ id: 'a', api_key: 'secret-key-value', base_url: 'not a url' }]);
    let message = '';
    try {
      vWorker({ [V]: path }, opts);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/PLATFORM_V_ACCOUNTS_FILE: entry 0 \(id 'a'\): base_url:/);
    expect(message).not.toContain('secret-key-value');
  });
});

describe('platforms T and B read their accounts files the same way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accounts-tb-'));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  const opts = { simulate: false, simBaseUrl: 'http://127.0.0.1:1' };

  test('T: secret_id, secret_key, subapp_id (region, endpoint optional)', () => {
    const path = file('t.json', [
      { id: 't1', secret_id: 'AKID1', secret_key: 's1', subapp_id: 1500000001 },
      { id: 't2', secret_id: 'AKID2', secret_key: 's2', subapp_id: 1500000002, region: 'ap-guangzhou', weight: 2, models: ['GV-3.1'] },
    ]);
    const w = tWorker({ PLATFORM_T_ACCOUNTS_FILE: path }, opts);
    expect(w.accounts?.map((a) => [a.id, a.weight, a.models])).toEqual([
      ['t1', 1, undefined],
      ['t2', 2, ['GV-3.1']],
    ]);
    expect(w.endpoint).toBe('https://vod.tencentcloudapi.com (accounts t1, t2)');
    expect(() =>
      tWorker({ PLATFORM_T_ACCOUNTS_FILE: file('t-bad.json', [{ id: 't1', secret_id: 'AKID1', secret_key: 's1' }]) }, opts),
    ).toThrow(/PLATFORM_T_ACCOUNTS_FILE: entry 0 \(id 't1'\): subapp_id:/);
    expect(() => tWorker({ PLATFORM_T_ACCOUNTS_FILE: path, PLATFORM_T_SECRET_ID: 'x' }, opts)).toThrow(
      /PLATFORM_T_ACCOUNTS_FILE: set either/,
    );
  });

  test('B: access_key_id, secret_access_key (api_key, endpoint optional)', () => {
    const path = file('b.json', [
      { id: 'b1', access_key_id: 'ak1', secret_access_key: 'sk1' },
      { id: 'b2', access_key_id: 'ak2', secret_access_key: 'sk2', api_key: 'bce-v3/ALTAK-x/y', endpoint: 'https://vod.example' },
    ]);
    const w = bWorker({ PLATFORM_B_ACCOUNTS_FILE: path }, opts);
    expect(w.accounts?.map((a) => a.id)).toEqual(['b1', 'b2']);
    expect(w.endpoint).toBe('https://vod.bj.baidubce.com, https://vod.example (accounts b1, b2)');
    expect(() =>
      bWorker(
        { PLATFORM_B_ACCOUNTS_FILE: file('b-bad.json', [{ id: 'b1', access_key_id: 'ak1', secret_access_key: 'sk1', api_key: 'plain' }]) },
        opts,
      ),
    ).toThrow(/PLATFORM_B_ACCOUNTS_FILE: entry 0 \(id 'b1'\): api_key: a VOD API key starts with bce-v3\//);
  });
});
