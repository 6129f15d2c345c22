/**
 * The platform test kit: what every platform's unit tests (test/unit/platforms/<x>/) need, once. A request as the
 * adapter receives it (schema-parsed, validated, normalised) or as the API refuses it, a strict simulator's verdict
 * on a body we built, and a recording HttpClient that answers from a function instead of a network.
 */
import { parseGenerationBody } from '../../tasks/validation';
import { TaskRefused } from '../../tasks/refusal';
import { buildCatalogue, imageRequestSchema, PLATFORM_IDS, videoRequestSchema } from '../../platforms';
import type { HttpClient, HttpResponse } from '../../platforms/http';
import { RequestRuleError } from '../../platforms/rules';
import { validateGeneration } from '../../platforms/validation';

export type Kind = 'video' | 'image';

/** The default catalogue (no models files). */
export const catalogue = buildCatalogue();
/** Every platform enabled, so a test of one platform's model is never refused for its platform being off. */
export const ENABLED: ReadonlySet<string> = new Set(PLATFORM_IDS);

/** A spec request as the adapter really receives it: schema-parsed, then validated and normalised. */
export function normalised(kind: Kind, body: Record<string, unknown>, cat = catalogue) {
  const parsed = kind === 'video' ? videoRequestSchema.parse(body) : imageRequestSchema.parse(body);
  return validateGeneration(cat, ENABLED, kind, parsed as Record<string, unknown> & { model: string });
}

/** The param of the 400 validation answers for `body`, or undefined when it is accepted. */
export function refusedParam(kind: Kind, body: Record<string, unknown>, cat = catalogue): string | undefined {
  try {
    normalised(kind, body, cat);
    return undefined;
  } catch (err) {
    if (err instanceof RequestRuleError) return err.param;
    throw err;
  }
}

/** A request as the start path validates it (parseGenerationBody: every door's validation, its refusals included). */
export function validated(kind: Kind, body: Record<string, unknown>, cat = catalogue) {
  return parseGenerationBody(cat, ENABLED, kind, body);
}

/** The 400 a request gets from the API: its param and code (or 'accepted'). */
export function refusal(kind: Kind, body: Record<string, unknown>): { param: string; code: string } | 'accepted' {
  try {
    validated(kind, body);
    return 'accepted';
  } catch (err) {
    const e = err as TaskRefused;
    expect(e).toBeInstanceOf(TaskRefused);
    expect(e.kind).toBe('invalid_request');
    return { param: e.details.param!, code: e.details.code };
  }
}

/**
 * What a strict simulated platform says about a body: `validate` runs one of sim/<x>'s validators on it
 * (written from the platform's documentation, not from our code). Undefined when accepted, else its error code
 * and message.
 */
export function simVerdict(validate: () => unknown): string | undefined {
  try {
    validate();
    return undefined;
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
}

/** One call an adapter made through fakeHttp, as it sent it. */
export interface Recorded {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An HttpClient that records every call and answers it with `answer(call)`; no network. */
export function fakeHttp(
  answer: (call: Recorded) => { status: number; body?: unknown; headers?: Record<string, string> },
): HttpClient & { calls: Recorded[] } {
  const calls: Recorded[] = [];
  return {
    calls,
    async send(method, url, opts = {}) {
      const call = { method, url, headers: opts.headers, body: opts.body };
      calls.push(call);
      const a = answer(call);
      const res: HttpResponse = {
        status: a.status,
        headers: a.headers ?? {},
        body: a.body,
        text: a.body === undefined ? '' : JSON.stringify(a.body),
      };
      return res;
    },
  };
}
