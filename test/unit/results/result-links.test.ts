/**
 * Signed result links and their configuration: a token is bound to one task, one output and its expiry; it fails
 * once expired or when any part is altered; the comparison is constant-time. Records show fresh links (or the
 * platform's, marked `stored: false`) and never the store's internal fields. Production refuses to start without
 * a real RESULT_URL_SECRET.
 */
import { timingSafeEqual } from 'node:crypto';
import type { GenerationResult } from '../../../core/task';
import { publicItems, ResultLinks } from '../../../results/result-links';
import { resolveLinks, resultLinksSchema, resultStoreSchema } from '../../../results/results-config';
import type { ResultStore } from '../../../results/result-store';
import { signContentToken, verifyContentToken } from '../../../results/signed-url';
import { ConfigError } from '../../../core/config';

// Observed, not replaced: the test below checks that the MAC comparison goes through timingSafeEqual.
jest.mock('node:crypto', () => {
  const actual = jest.requireActual('node:crypto');
  return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const NOW = 1_800_000_000;

describe('signed content tokens', () => {
  const token = signContentToken(SECRET, 'task_A', { index: 0 }, NOW + 60);

  test('valid until it expires', () => {
    expect(verifyContentToken(SECRET, token, 'task_A', { index: 0 }, NOW)).toEqual({ ok: true, expiresAt: NOW + 60 });
    expect(verifyContentToken(SECRET, token, 'task_A', { index: 0 }, NOW + 59).ok).toBe(true);
    expect(verifyContentToken(SECRET, token, 'task_A', { index: 0 }, NOW + 60)).toEqual({ ok: false, why: 'expired' });
  });

  test('bound to the task, the output, the expiry and the secret', () => {
    expect(verifyContentToken(SECRET, token, 'task_B', { index: 0 }, NOW)).toEqual({ ok: false, why: 'invalid' });
    expect(verifyContentToken(SECRET, token, 'task_A', { index: 1 }, NOW)).toEqual({ ok: false, why: 'invalid' });
    expect(verifyContentToken(SECRET, token, 'task_A', { lastFrame: true }, NOW)).toEqual({ ok: false, why: 'invalid' });
    expect(verifyContentToken(`${SECRET}x`, token, 'task_A', { index: 0 }, NOW)).toEqual({ ok: false, why: 'invalid' });
    // A later expiry with the old MAC: the expiry is signed.
    const [, mac] = token.split('.');
    expect(verifyContentToken(SECRET, `${NOW + 999_999}.${mac}`, 'task_A', { index: 0 }, NOW)).toEqual({ ok: false, why: 'invalid' });
    // One character of the MAC changed.
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(verifyContentToken(SECRET, flipped, 'task_A', { index: 0 }, NOW)).toEqual({ ok: false, why: 'invalid' });
  });

  test('malformed tokens are refused without computing anything', () => {
    for (const bad of ['', 'abc', `${NOW}`, `${NOW}.`, `${NOW}.short`, `x.${'A'.repeat(43)}`, `${NOW}.${'A'.repeat(44)}`]) {
      expect(verifyContentToken(SECRET, bad, 'task_A', { index: 0 }, NOW)).toEqual({ ok: false, why: 'malformed' });
    }
  });

  test('the MAC is compared with crypto.timingSafeEqual', () => {
    const spy = timingSafeEqual as unknown as jest.Mock;
    spy.mockClear();
    expect(verifyContentToken(SECRET, token, 'task_A', { index: 0 }, NOW).ok).toBe(true);
    expect(verifyContentToken(SECRET, token, 'task_B', { index: 0 }, NOW).ok).toBe(false);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});

describe('ResultLinks.render', () => {
  const store = { kind: 'directory' } as unknown as ResultStore;
  const links = new ResultLinks({ mode: 'gateway', ttlSeconds: 3600, secret: SECRET, store, now: () => NOW * 1000 });
  const result: GenerationResult = {
    created: NOW,
    data: [
      {
        url: 'https://cdn.platform.example/v.mp4?sig=secret',
        stored: true,
        key: 'task_A/0-result.mp4',
        contentType: 'video/mp4',
        bytes: 10,
        sha256: 'ab',
      },
      { url: 'https://cdn.platform.example/b.mp4', stored: false, storeError: 'too large' },
    ],
    extras: {
      video_url: 'https://cdn.platform.example/v.mp4?sig=secret',
      last_frame_url: 'https://cdn.platform.example/f.png',
      duration: 5,
    },
    lastFrame: {
      url: 'https://cdn.platform.example/f.png',
      stored: true,
      key: 'task_A/0-last-frame.png',
      contentType: 'image/png',
      bytes: 3,
      sha256: 'cd',
    },
  };

  test('stored outputs get signed gateway links under the request origin; unstored keep the platform link', async () => {
    const shown = await links.render('task_A', result, 'https://gw.example');
    const first = new URL(shown.data[0]!.url);
    expect(first.origin + first.pathname).toBe('https://gw.example/v1/generations/task_A/content');
    expect(first.searchParams.get('index')).toBe('0');
    const token = first.searchParams.get('token')!;
    expect(links.verify(token, 'task_A', { index: 0 })).toEqual({ ok: true, expiresAt: NOW + 3600 });
    expect(shown.data[1]).toEqual({ url: 'https://cdn.platform.example/b.mp4', stored: false });
    expect(shown.extras.video_url).toBe(shown.data[0]!.url);
    expect(new URL(String(shown.extras.last_frame_url)).searchParams.get('which')).toBe('last_frame');
    expect(shown.extras.duration).toBe(5);
    // Internal fields never reach the client.
    expect(JSON.stringify(shown)).not.toMatch(/sha256|task_A\/0-result|storeError|sig=secret/);
  });

  test('every render issues a fresh link (expiry counted from the read)', async () => {
    let now = NOW * 1000;
    const moving = new ResultLinks({
      mode: 'gateway',
      ttlSeconds: 60,
      secret: SECRET,
      store,
      publicBaseUrl: 'https://api.example.com',
      now: () => now,
    });
    const a = (await moving.render('task_A', result, 'https://ignored.example')).data[0]!.url;
    now += 5_000;
    const b = (await moving.render('task_A', result, 'https://ignored.example')).data[0]!.url;
    expect(a).not.toBe(b);
    expect(a.startsWith('https://api.example.com/v1/generations/task_A/content?index=0&token=')).toBe(true);
  });

  test('records written before results were kept show the platform link as it was', () => {
    expect(publicItems([{ url: 'https://x/y.png' }])).toEqual([{ url: 'https://x/y.png' }]);
  });
});

describe('link configuration', () => {
  const parse = (env: Record<string, string>) => ({
    ...resultStoreSchema.extend(resultLinksSchema.shape).parse(env),
    NODE_ENV: env.NODE_ENV ?? 'development',
  });

  test('production refuses gateway links without RESULT_URL_SECRET, naming it', () => {
    expect(() => resolveLinks(parse({ NODE_ENV: 'production' }))).toThrow(ConfigError);
    expect(() => resolveLinks(parse({ NODE_ENV: 'production' }))).toThrow(/RESULT_URL_SECRET/);
    expect(resolveLinks(parse({ NODE_ENV: 'production', RESULT_URL_SECRET: SECRET }))).toMatchObject({
      mode: 'gateway',
      ttlSeconds: 7 * 86_400,
    });
    expect(() => parse({ RESULT_URL_SECRET: 'too-short' })).toThrow(/32/);
  });

  test('development without a secret is allowed (the API makes one up and warns)', () => {
    expect(resolveLinks(parse({})).secret).toBeUndefined();
  });

  test('S3 defaults to presigned links, which live at most 7 days', () => {
    expect(resolveLinks(parse({ RESULTS_S3_BUCKET: 'b', NODE_ENV: 'production' }))).toMatchObject({ mode: 'presigned' });
    expect(() => resolveLinks(parse({ RESULTS_S3_BUCKET: 'b', RESULT_URL_TTL: '8d' }))).toThrow(/RESULT_URL_TTL/);
    expect(() => resolveLinks(parse({ RESULT_LINKS: 'presigned' }))).toThrow(/RESULT_LINKS/);
    expect(
      resolveLinks(parse({ RESULTS_S3_BUCKET: 'b', RESULT_LINKS: 'gateway', RESULT_URL_SECRET: SECRET, RESULT_URL_TTL: '12h' })),
    ).toMatchObject({ mode: 'gateway', ttlSeconds: 43_200 });
  });

  test('RESULT_URL_TTL takes s/m/h/d or seconds', () => {
    expect(resolveLinks(parse({ RESULT_URL_TTL: '90' })).ttlSeconds).toBe(90);
    expect(resolveLinks(parse({ RESULT_URL_TTL: '30m' })).ttlSeconds).toBe(1800);
    expect(() => parse({ RESULT_URL_TTL: '1w' })).toThrow(/duration/);
    expect(() => parse({ RESULT_URL_TTL: '0' })).toThrow(/duration/);
  });
});
