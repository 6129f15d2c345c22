/**
 * Where a task's events go: the webhook fields of a generation request, `webhook_url` (or the key's default) and
 * `webhook_events`. They are taken out of the body before the generation fields are validated (no platform
 * ever sees them) and checked here, naming the field: the URL's form, its host (private hosts and names that
 * resolve to private addresses are refused, webhooks/url.ts), and that the key has a signing secret. The start
 * path (tasks/start.ts) asks through TaskWebhooks, which webhookTargets makes of the gateway's policy.
 */
import { DEFAULT_WEBHOOK_EVENTS, isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent, type WebhookTarget } from '../core/webhooks';
import type { ApiKey } from '../keys/api-keys';
import { invalidTask } from '../tasks/refusal';
import type { TaskWebhooks, WebhookFields } from '../tasks/start';
import type { WebhookSecrets } from './signing';
import { checkWebhookUrl, WebhookUrlError, type HostCheck } from './url';

export interface WebhookPolicy {
  secrets: WebhookSecrets;
  /** WEBHOOK_ALLOW_PRIVATE_ORIGINS. */
  allowPrivateOrigins: ReadonlySet<string>;
  /** How a webhook_url's host is resolved at request time (default: the system's resolver, within 3 s). */
  hostCheck?: HostCheck;
}

/** The body without its webhook fields (what the generation schema validates), and the fields as sent. */
export function splitWebhookFields(body: unknown): { body: unknown } & WebhookFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body };
  const { webhook_url: url, webhook_events: events, ...rest } = body as Record<string, unknown>;
  return { body: rest, url, events };
}

function parseEvents(events: unknown): WebhookEvent[] {
  if (events === undefined) return [...DEFAULT_WEBHOOK_EVENTS];
  const list = WEBHOOK_EVENTS.join(', ');
  if (!Array.isArray(events) || events.length === 0)
    throw invalidTask(`webhook_events must be a non-empty array of: ${list}`, 'webhook_events', 'invalid_value');
  const bad = events.find((e) => !isWebhookEvent(e));
  if (bad !== undefined)
    throw invalidTask(`webhook_events: ${JSON.stringify(bad)} is not one of ${list}`, 'webhook_events', 'invalid_value');
  return [...new Set(events as WebhookEvent[])];
}

/** The task's webhook target, or undefined when neither the request nor the key names a URL. */
export async function webhookTarget(
  fields: WebhookFields,
  key: ApiKey,
  policy: WebhookPolicy,
  linkBase: string,
): Promise<WebhookTarget | undefined> {
  if (fields.url !== undefined && typeof fields.url !== 'string')
    throw invalidTask('webhook_url must be a string (an https URL)', 'webhook_url', 'invalid_value');
  const url = fields.url ?? key.webhookUrl;
  if (url === undefined) {
    if (fields.events !== undefined)
      throw invalidTask("webhook_events needs a webhook_url (in the request, or the API key's default)", 'webhook_events', 'invalid_value');
    return undefined;
  }
  const events = parseEvents(fields.events);
  try {
    await checkWebhookUrl(url, policy.allowPrivateOrigins, policy.hostCheck);
  } catch (err) {
    if (err instanceof WebhookUrlError) throw invalidTask(`webhook_url ${err.message}`, 'webhook_url', 'invalid_value');
    throw err;
  }
  if (!(await policy.secrets.forKey(key.id))) {
    throw invalidTask(
      'webhook_url cannot be used: this gateway has no webhook signing secret for this API key (WEBHOOK_SIGNING_SECRET)',
      'webhook_url',
      'webhooks_not_configured',
    );
  }
  return { url, events, linkBase };
}

/** The start path's webhook step (tasks/start.ts TaskWebhooks) under the gateway's policy. */
export function webhookTargets(policy: WebhookPolicy): TaskWebhooks {
  return {
    split: splitWebhookFields,
    target: (fields, key, linkBase) => webhookTarget(fields, key, policy, linkBase),
  };
}
