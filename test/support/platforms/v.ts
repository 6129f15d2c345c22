/**
 * Platform V's test fixtures, shared by test/unit/platforms/v/*: the model ids, the create options and seed marker,
 * a strict platform V's verdict (sim/v's validator), and a fake Ark answering from a function.
 */
import type { HttpClient } from '../../../platforms/http';
import { markerSeed } from '../../../platforms/v/request-body';
import { validateVCreate } from '../../../sim/v';
import { fakeHttp, simVerdict } from '../platform-kit';

export const NOW = 1767225600_000;
export const KEY = 'task_abc-0123456789abcdef';
export const OPTS = { dedupKey: KEY, deadlineAt: NOW + 2 * 3600_000, now: NOW };
export const SEED = markerSeed(KEY);

export const V10 = 'vendor-video-1-0-pro-250528';
export const V10F = 'vendor-video-1-0-pro-fast-251015';
export const V15 = 'vendor-video-1-5-pro-251215';
export const V20 = 'vendor-video-2-0-260128';
export const V20F = 'vendor-video-2-0-fast-260128';
export const I2V = 'vendor-video-1-0-lite-i2v-250428';

/** A strict platform V's verdict on a create body: undefined when accepted, else its error code and message. */
export function vSimVerdict(body: unknown): string | undefined {
  return simVerdict(() =>
    validateVCreate(
      body,
      () => undefined,
      () => 1,
    ),
  );
}

export type Sent = { method: string; url: string; headers: Record<string, string>; body: any };

/** A fake Ark: records each call (its JSON body parsed) and answers with `answer(method, url, body)`. */
export function fakeV(answer: (method: string, url: URL, body: any) => { status?: number; body: unknown }): {
  http: HttpClient;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const http = fakeHttp((call) => {
    const body = call.body === undefined ? undefined : JSON.parse(call.body);
    sent.push({ method: call.method, url: call.url, headers: call.headers ?? {}, body });
    const r = answer(call.method, new URL(call.url), body);
    return { status: r.status ?? 200, body: r.body };
  });
  return { http, sent };
}

export const SETTINGS = { baseUrl: 'http://sim.test/api/v3/', apiKey: 'sim-v-key' };
