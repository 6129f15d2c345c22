/**
 * What the workers know and the API does not: whether each platform still has an account in the rotation. The
 * accounts' health lives in each worker's memory (activities/accounts.ts); every worker answers it at its own
 * `GET /readyz` (WORKER_METRICS_PORT). The API's `/readyz` asks the workers named in WORKER_READY_URLS, so the
 * one address an operator watches says which platform has no account — while staying 200: the API still
 * accepts tasks for that platform (they wait within their deadline) and for every other platform, so a load
 * balancer must not take it out of rotation for this.
 */

/** How long the API's /readyz waits for one worker's answer. */
export const WORKER_READY_TIMEOUT_MS = 1_000;

export interface WorkerReadiness {
  /** Platforms whose every account is out, with why (the workers' own words), merged over the workers asked. */
  platformsWithoutAccount: Record<string, string>;
  /** Workers that did not answer within the bound, or answered something else than their /readyz. */
  unreachable: string[];
}

interface WorkerReadyBody {
  status?: unknown;
  platforms?: unknown;
}

/** Asks every worker at once, each within `timeoutMs`; a worker that cannot say is listed, never waited on. */
export async function askWorkers(urls: readonly string[], timeoutMs = WORKER_READY_TIMEOUT_MS): Promise<WorkerReadiness> {
  const answers = await Promise.all(urls.map((url) => askWorker(url, timeoutMs)));
  const readiness: WorkerReadiness = { platformsWithoutAccount: {}, unreachable: [] };
  answers.forEach((answer, i) => {
    if (answer === undefined) readiness.unreachable.push(urls[i]!);
    else Object.assign(readiness.platformsWithoutAccount, answer);
  });
  return readiness;
}

/** One worker's platforms without an account ({} when it is ready); undefined: no usable answer. */
async function askWorker(url: string, timeoutMs: number): Promise<Record<string, string> | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (res.status !== 200 && res.status !== 503) return undefined;
    const body = (await res.json()) as WorkerReadyBody;
    if (res.status === 200 && body.status === 'ready') return {};
    if (body.status !== 'no_account' || typeof body.platforms !== 'object' || body.platforms === null) return undefined;
    return Object.fromEntries(Object.entries(body.platforms).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return undefined;
  }
}

/** WORKER_READY_URLS: comma-separated absolute http(s) URLs; a start-up error names the bad one. */
export function parseWorkerReadyUrls(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      let url: URL;
      try {
        url = new URL(s);
      } catch {
        throw new Error(`WORKER_READY_URLS: '${s}' is not an absolute URL (a worker's readiness, e.g. http://worker:9464/readyz)`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`WORKER_READY_URLS: '${s}' is not http(s)`);
      return url.toString();
    });
}
