/**
 * The webhook fields of a generation request and of a key: a key's default `webhook_url` (its
 * API_KEYS_FILE entry) applies when the request names none, the request's own wins, and every refusal names its
 * field; the keys file's webhook fields are read and checked. A public-looking name that resolves to a private
 * address  is refused when the request arrives, through the real app over HTTP too; the resolver
 * stands in for DNS answers.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiKeysFile, type ApiKey } from '../../../keys/api-keys';
import { TaskRefused } from '../../../tasks/refusal';
import { webhookTarget, type WebhookPolicy } from '../../../webhooks/targets';
import { derivedWebhookSecret, webhookSecrets } from '../../../webhooks/signing';
import type { HostResolver } from '../../../webhooks/url';
import { postJson, useTestApi } from '../../support/test-api';

const ALLOWED = 'http://127.0.0.1:9999';
const policy: WebhookPolicy = {
  secrets: webhookSecrets({ masterSecret: 'a-master-secret-for-this-test-0123456789', explicit: async () => undefined }),
  allowPrivateOrigins: new Set([ALLOWED]),
};

function keysFile(entries: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mediagate-keys-')), 'keys.json');
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TaskRefused);
  return err as TaskRefused;
};

describe('webhook fields', () => {
  const [withDefault] = parseApiKeysFile(
    keysFile([{ id: 'erin', secret: 'sk-test-erin-0123456789abcdef', webhook_url: `${ALLOWED}/default` }]),
  ) as [ApiKey];

  test("a key's webhook_url from API_KEYS_FILE is the default, with the final events", async () => {
    expect(withDefault.webhookUrl).toBe(`${ALLOWED}/default`);
    expect(await webhookTarget({}, withDefault, policy, 'http://api')).toEqual({
      url: `${ALLOWED}/default`,
      events: ['succeeded', 'failed'],
      linkBase: 'http://api',
    });
  });

  test("the request's webhook_url and webhook_events win over the key's default", async () => {
    expect(
      await webhookTarget({ url: `${ALLOWED}/mine`, events: ['running', 'running', 'failed'] }, withDefault, policy, 'http://api'),
    ).toEqual({
      url: `${ALLOWED}/mine`,
      events: ['running', 'failed'],
      linkBase: 'http://api',
    });
  });

  test('webhook_events without any webhook_url, or empty, or unknown, is refused naming webhook_events', async () => {
    const bare: ApiKey = { id: 'x', digest: Buffer.alloc(32) };
    expect(await refusal(webhookTarget({ events: ['succeeded'] }, bare, policy, ''))).toMatchObject({
      kind: 'invalid_request',
      details: { param: 'webhook_events' },
    });
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a`, events: [] }, bare, policy, ''))).toMatchObject({
      details: { param: 'webhook_events' },
    });
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a`, events: 'succeeded' }, bare, policy, ''))).toMatchObject({
      details: { param: 'webhook_events' },
    });
    expect(await refusal(webhookTarget({ url: 42 }, bare, policy, ''))).toMatchObject({ details: { param: 'webhook_url' } });
  });

  test('without any signing secret for the key, a webhook_url is refused naming it', async () => {
    const none: WebhookPolicy = { secrets: webhookSecrets({ explicit: async () => undefined }), allowPrivateOrigins: new Set([ALLOWED]) };
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a` }, withDefault, none, ''))).toMatchObject({
      details: { param: 'webhook_url', code: 'webhooks_not_configured' },
    });
  });
});

describe('API_KEYS_FILE webhook fields', () => {
  test('webhook_secret and webhook_secret_previous are read and signed with, before the derived secret', async () => {
    const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const keys = parseApiKeysFile(
      keysFile([
        { id: 'fred', secret: 'sk-test-fred-0123456789abcdef', webhook_secret: current, webhook_secret_previous: previous },
        { id: 'gina', secret: 'sk-test-gina-0123456789abcdef' },
      ]),
    );
    const master = 'a-master-secret-for-this-test-0123456789';
    const secrets = webhookSecrets({ masterSecret: master, explicit: async (id) => keys.find((k) => k.id === id)?.webhookSecret });
    expect(await secrets.forKey('fred')).toEqual({ current, previous: [previous] });
    expect(await secrets.forKey('gina')).toEqual({ current: derivedWebhookSecret(master, 'gina'), previous: [] });
  });

  test('a webhook_secret not in the whsec_ form is a configuration error naming the field', () => {
    expect(() => parseApiKeysFile(keysFile([{ id: 'h', secret: 'sk-test-h-0123456789abcdefgh', webhook_secret: 'not-a-secret' }]))).toThrow(
      /API_KEYS_FILE: 0\.webhook_secret: must be whsec_/,
    );
  });
});

describe('a webhook_url whose host resolves to a private address is refused at request time', () => {
  const bare: ApiKey = { id: 'x', digest: Buffer.alloc(32) };
  /** DNS as these tests see it: each name's addresses; a name not listed does not exist. */
  const DNS: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'rebind.example.com': ['10.1.2.3'],
    'metadata.example.com': ['169.254.169.254'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'v6-local.example.com': ['fd00::1'],
  };
  const asked: string[] = [];
  const resolve: HostResolver = async (host) => {
    asked.push(host);
    const addresses = DNS[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address }));
  };
  const checked: WebhookPolicy = { ...policy, hostCheck: { resolve } };

  test.each([
    ['rebind.example.com', '10.1.2.3'],
    ['metadata.example.com', '169.254.169.254'],
    ['mixed.example.com', '127.0.0.1'],
    ['v6-local.example.com', 'fd00::1'],
  ])('%s (resolving to %s) → 400 naming webhook_url and the address', async (host, address) => {
    const err = await refusal(webhookTarget({ url: `https://${host}/hook` }, bare, checked, ''));
    expect(err).toMatchObject({ kind: 'invalid_request', details: { param: 'webhook_url' } });
    expect(err.message).toContain(`resolves to a private address (${address})`);
  });

  test('a name resolving to public addresses only is accepted; one that does not resolve is refused', async () => {
    expect(await webhookTarget({ url: 'https://hooks.example.com/hook' }, bare, checked, 'http://api')).toEqual({
      url: 'https://hooks.example.com/hook',
      events: ['succeeded', 'failed'],
      linkBase: 'http://api',
    });
    const err = await refusal(webhookTarget({ url: 'https://nowhere.example.com/hook' }, bare, checked, ''));
    expect(err).toMatchObject({ details: { param: 'webhook_url' } });
    expect(err.message).toMatch(/nowhere\.example\.com does not resolve/);
  });

  test('an origin the operator allows is not resolved at all', async () => {
    asked.length = 0;
    expect(await webhookTarget({ url: `${ALLOWED}/x` }, bare, checked, '')).toMatchObject({ url: `${ALLOWED}/x` });
    expect(asked).toEqual([]);
  });

  test('a resolver that does not answer holds the request no longer than the bound: refused, saying so', async () => {
    const silent: WebhookPolicy = { ...policy, hostCheck: { resolve: () => new Promise(() => undefined), timeoutMs: 300 } };
    const t0 = Date.now();
    const err = await refusal(webhookTarget({ url: 'https://slow-dns.example.com/hook' }, bare, silent, ''));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(err).toMatchObject({ kind: 'invalid_request', details: { param: 'webhook_url' } });
    expect(err.message).toContain('slow-dns.example.com did not resolve within 300 ms');
  });

  describe('over HTTP, through the real app', () => {
    const app = useTestApi({ deps: { webhooks: { ...policy, hostCheck: { resolve } } } });

    test('POST /v1/async/videos/generations with such a webhook_url → 400 naming it; nothing is started', async () => {
      const r = await postJson(app.api.base, '/v1/async/videos/generations', {
        model: 'vendor-video-1-0-pro-250528',
        prompt: 'x',
        duration: 5,
        webhook_url: 'https://rebind.example.com/hook',
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        param: 'webhook_url',
        type: 'invalid_request_error',
        message: expect.stringContaining('resolves to a private address (10.1.2.3)'),
      });
      expect(app.api.started).toEqual([]);
    });

    test('the same request naming a host that resolves publicly is started with its webhook', async () => {
      const r = await postJson(app.api.base, '/v1/async/videos/generations', {
        model: 'vendor-video-1-0-pro-250528',
        prompt: 'x',
        duration: 5,
        webhook_url: 'https://hooks.example.com/hook',
      });
      expect(r.status).toBe(200);
      expect(app.api.started).toHaveLength(1);
    });
  });
});
