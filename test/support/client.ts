/** Small HTTP helpers for tests: the gateway's API as a client sees it, and the simulator's control surface. */
import { TEST_KEYS } from './stack';

export type KeyName = keyof typeof TEST_KEYS;

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: KeyName | string | null = 'alice',
  ) {}

  private authHeader(): Record<string, string> {
    if (this.key === null) return {};
    const secret = this.key in TEST_KEYS ? TEST_KEYS[this.key as KeyName].secret : this.key;
    return { Authorization: `Bearer ${secret}` };
  }

  async request<T = any>(
    method: string,
    path: string,
    opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...this.authHeader(), ...(opts.headers ?? {}) };
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text, a test will say so
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }

  post<T = any>(path: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { body, headers });
  }

  /**
   * Polls a task every 100 ms until it is terminal (bounded by `timeoutMs`), recording every state seen on the
   * way (`running 40%` for a running one), so a test can assert the path as well as the end.
   */
  async watchTask(taskId: string, timeoutMs = 30_000): Promise<{ record: any; seen: string[] }> {
    const deadline = Date.now() + timeoutMs;
    const seen: string[] = [];
    while (Date.now() < deadline) {
      const record = (await this.get(`/v1/generations/${taskId}`)).body;
      const state = record.status === 'running' ? `running ${record.progress}` : String(record.status);
      if (seen.at(-1) !== state) seen.push(state);
      if (record.status === 'success' || record.status === 'failed') return { record, seen };
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`task ${taskId} not terminal after ${timeoutMs} ms; seen ${seen.join(' → ')}`);
  }

  /** Polls a task until it reaches a terminal status (bounded by `timeoutMs`), returning the last record. */
  async waitForTask(taskId: string, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      const r = await this.get(`/v1/generations/${taskId}`);
      last = r.body;
      if (r.status === 200 && (last.status === 'success' || last.status === 'failed')) return last;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error(`task ${taskId} not terminal after ${timeoutMs} ms: ${JSON.stringify(last)}`);
  }
}

export class SimClient {
  constructor(readonly baseUrl: string) {}

  async stats(): Promise<
    Record<
      'T' | 'B' | 'V',
      {
        submitRequests: number;
        jobsCreated: number;
        dedupRefusals: number;
        polls: number;
        lists: number;
        cancels: number;
        rejected: number;
        faultsInjected: number;
        answersDropped: number;
      }
    >
  > {
    return (await fetch(`${this.baseUrl}/_sim/stats`)).json() as Promise<any>;
  }

  async requests(
    platform?: string,
    op?: string,
  ): Promise<
    {
      platform: string;
      op: string;
      method: string;
      path: string;
      query?: string;
      headers: Record<string, string>;
      body: any;
      status?: number;
      response?: any;
      at?: number;
    }[]
  > {
    const q = new URLSearchParams({ ...(platform ? { platform } : {}), ...(op ? { op } : {}) });
    return (await fetch(`${this.baseUrl}/_sim/requests?${q}`)).json() as Promise<any>;
  }

  /** The first recorded request matching `match`, waiting (bounded) for it to arrive. */
  async waitForRequest(platform: string, op: string, match: (body: any) => boolean, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = (await this.requests(platform, op)).find((r) => match(r.body));
      if (found) return found;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error(`no ${platform} ${op} request matched within ${timeoutMs} ms`);
  }

  async fault(f: {
    platform?: string;
    op?: string;
    status: number | 'reset' | 'drop';
    count?: number;
    durationMs?: number;
    retryAfterSeconds?: number;
  }): Promise<void> {
    await fetch(`${this.baseUrl}/_sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f),
    });
  }

  async clearFaults(): Promise<void> {
    await fetch(`${this.baseUrl}/_sim/faults`, { method: 'DELETE' });
  }

  async clearCallbackFaults(): Promise<void> {
    await fetch(`${this.baseUrl}/_sim/callback-faults`, { method: 'DELETE' });
  }

  /** The jobs the simulator holds (a platform's own data under `meta`, e.g. B's request and ignored fields). */
  async jobs(
    platform?: string,
  ): Promise<{ id: string; platform: string; kind: string; model: string; meta: any; view: { state: string } }[]> {
    const q = new URLSearchParams(platform ? { platform } : {});
    return (await fetch(`${this.baseUrl}/_sim/jobs?${q}`)).json() as Promise<any>;
  }

  /** Callbacks the simulated platforms sent (sim/callbacks.ts). */
  async callbacks(
    platform?: string,
  ): Promise<
    { platform: string; url: string; body: any; headers: Record<string, string>; fault?: string; attempts: number[]; jobId?: string }[]
  > {
    return (await fetch(`${this.baseUrl}/_sim/callbacks${platform ? `?platform=${platform}` : ''}`)).json() as Promise<any>;
  }

  /** The next `count` callbacks of `platform` (all when absent) get `fault`. */
  async callbackFault(f: {
    platform?: string;
    fault: 'drop' | 'duplicate' | 'late' | 'bad-signature';
    count?: number;
    delayMs?: number;
  }): Promise<void> {
    await fetch(`${this.baseUrl}/_sim/callback-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(f),
    });
  }

  /** The simulator's tunables: default job duration, how long a `slow` fault holds an answer back. */
  async config(c: { jobDurationMs?: number; slowAnswerMs?: number }): Promise<void> {
    await fetch(`${this.baseUrl}/_sim/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(c),
    });
  }
}
