/**
 * The gateway's webhooks are signed per Standard Webhooks (docs/api.md, "Webhooks"): `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` over "id.timestamp.body", keyed with the API key's `whsec_…` secret.
 * A notification is trusted only once the `standardwebhooks` library verifies it against that secret.
 */
import type { Experimental_VideoModelV4OperationWebhook } from '@ai-sdk/provider';
import { Webhook } from 'standardwebhooks';
import { gatewayJson, type GatewaySettings } from './http.js';

export interface WebhookVerifier {
  /** The notification, its body parsed, once its signature verifies; throws otherwise. */
  verify(event: Experimental_VideoModelV4OperationWebhook<unknown>): Promise<Experimental_VideoModelV4OperationWebhook>;
}

/** `secret`: the key's `whsec_…`; without it, read once from `GET /v1/webhooks/default/secret` with the key. */
export function webhookVerifier(gateway: GatewaySettings, secret: string | undefined): WebhookVerifier {
  let known: Promise<string> | undefined = secret ? Promise.resolve(secret) : undefined;
  const secretOf = () =>
    (known ??= gatewayJson<{ key: string }>(gateway, 'GET', '/webhooks/default/secret', { canRetry: true }).then((a) => a.body.key));
  return {
    async verify(event) {
      // The signature covers the bytes as sent: a receiver should hand over the raw body (a string or bytes). A
      // parsed body is serialised again, which matches the gateway's compact JSON but not another serialisation.
      const raw =
        typeof event.body === 'string'
          ? event.body
          : event.body instanceof Uint8Array
            ? new TextDecoder().decode(event.body)
            : JSON.stringify(event.body);
      const headers = Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k.toLowerCase(), v]));
      const body = new Webhook(await secretOf()).verify(raw, headers) as Experimental_VideoModelV4OperationWebhook['body'];
      return { headers: event.headers, body };
    },
  };
}
