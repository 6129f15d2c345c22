/**
 * The webhook fields of a generation request and of a key (issue 21 §1): a key's default `webhook_url` (its
 * API_KEYS_FILE entry) applies when the request names none, the request's own wins, and every refusal names its
 * field; the keys file's webhook fields are read and checked.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiKeysFile, type ApiKey } from '../../../api/api-keys';
import { ApiError } from '../../../api/api-error';
import { webhookTarget, type WebhookPolicy } from '../../../api/webhook-request';
import { derivedWebhookSecret, webhookSecrets } from '../../../core/webhook-signing';

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
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
};

describe('webhook fields', () => {
  const [withDefault] = parseApiKeysFile(keysFile([{ id: 'erin', secret: 'sk-test-erin-0123456789abcdef', webhook_url: `${ALLOWED}/default` }])) as [ApiKey];

  test("a key's webhook_url from API_KEYS_FILE is the default, with the final events", async () => {
    expect(withDefault.webhookUrl).toBe(`${ALLOWED}/default`);
    expect(await webhookTarget({}, withDefault, policy, 'http://api')).toEqual({ url: `${ALLOWED}/default`, events: ['succeeded', 'failed'], linkBase: 'http://api' });
  });

  test("the request's webhook_url and webhook_events win over the key's default", async () => {
    expect(await webhookTarget({ url: `${ALLOWED}/mine`, events: ['running', 'running', 'failed'] }, withDefault, policy, 'http://api')).toEqual({
      url: `${ALLOWED}/mine`,
      events: ['running', 'failed'],
      linkBase: 'http://api',
    });
  });

  test('webhook_events without any webhook_url, or empty, or unknown, is refused naming webhook_events', async () => {
    const bare: ApiKey = { id: 'x', digest: Buffer.alloc(32) };
    expect(await refusal(webhookTarget({ events: ['succeeded'] }, bare, policy, ''))).toMatchObject({ status: 400, opts: { param: 'webhook_events' } });
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a`, events: [] }, bare, policy, ''))).toMatchObject({ opts: { param: 'webhook_events' } });
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a`, events: 'succeeded' }, bare, policy, ''))).toMatchObject({ opts: { param: 'webhook_events' } });
    expect(await refusal(webhookTarget({ url: 42 }, bare, policy, ''))).toMatchObject({ opts: { param: 'webhook_url' } });
  });

  test('without any signing secret for the key, a webhook_url is refused naming it', async () => {
    const none: WebhookPolicy = { secrets: webhookSecrets({ explicit: async () => undefined }), allowPrivateOrigins: new Set([ALLOWED]) };
    expect(await refusal(webhookTarget({ url: `${ALLOWED}/a` }, withDefault, none, ''))).toMatchObject({ opts: { param: 'webhook_url', code: 'webhooks_not_configured' } });
  });
});

describe('API_KEYS_FILE webhook fields', () => {
  test('webhook_secret and webhook_secret_previous are read and signed with, before the derived secret', async () => {
    const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const keys = parseApiKeysFile(keysFile([{ id: 'fred', secret: 'sk-test-fred-0123456789abcdef', webhook_secret: current, webhook_secret_previous: previous }, { id: 'gina', secret: 'sk-test-gina-0123456789abcdef' }]));
    const master = 'a-master-secret-for-this-test-0123456789';
    const secrets = webhookSecrets({ masterSecret: master, explicit: async (id) => keys.find((k) => k.id === id)?.webhookSecret });
    expect(await secrets.forKey('fred')).toEqual({ current, previous: [previous] });
    expect(await secrets.forKey('gina')).toEqual({ current: derivedWebhookSecret(master, 'gina'), previous: [] });
  });

  test('a webhook_secret not in the whsec_ form is a configuration error naming the field', () => {
    expect(() => parseApiKeysFile(keysFile([{ id: 'h', secret: 'sk-test-h-0123456789abcdefgh', webhook_secret: 'not-a-secret' }]))).toThrow(/API_KEYS_FILE: 0\.webhook_secret: must be whsec_/);
  });
});
