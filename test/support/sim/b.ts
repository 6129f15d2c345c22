/**
 * The platform B simulator's test harness, shared by test/unit/sim/b/*: one simulator per test file (reset before
 * each test), bce-auth-v1-signed calls to it over raw HTTP (so every header is as sent), its control surface, and
 * create bodies of a valid shape.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { SIM_ACCOUNTS, type SimBAccount } from '../../../sim/accounts';
import { bceSign, bceTimestamp, uriEncode } from '../../../sim/b/signing';
import type { Simulator } from '../../../sim/server';
import { SIM_JOB_END_BOUND_MS, simulatorFixture } from '../simulator';
import { waitFor } from '../wait-for';

const fixture = simulatorFixture({ jobDurationMs: 300 }, async () => {
  await sim_.post('/_sim/reset', {});
});
export const sim = fixture.sim;
/** Call once at the top of a test file: a simulator for its tests. */
export const useBSimulator = fixture.use;
let redirectedPort: number | undefined;
/** The port the harness's calls go to (B signs the host header, port included): the running simulator's by default. */
export const simPort = () => redirectedPort ?? Number(new URL(sim.url).port);
/** Sends the harness's calls to `other` (say, a simulator started on a data file) until the returned restore(). */
export function callsGoTo(other: Simulator): () => void {
  redirectedPort = Number(new URL(other.url).port);
  return () => {
    redirectedPort = undefined;
  };
}

export const AK = SIM_ACCOUNTS.B.accessKeyId;
export const SK = SIM_ACCOUNTS.B.secretAccessKey;

// ------------------------------------------------------------------------------------------------ HTTP helpers

export interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

export function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: simPort(), method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: `text` has it
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface CallOptions {
  /** 'none' = no Authorization header; any other string is sent as is. */
  auth?: string;
  ak?: string;
  sk?: string;
  at?: number;
  expirationSeconds?: number;
  signedHeaders?: string[];
  headers?: Record<string, string>;
  contentType?: string;
  /** Send these bytes instead of JSON.stringify(body). */
  rawBody?: string;
}

/** Call options signing with one of the simulator's B accounts (AK/SK). */
export const signedBy = (account: SimBAccount): CallOptions => ({ ak: account.accessKeyId, sk: account.secretAccessKey });

/** A request signed with bce-auth-v1 (host;x-bce-date unless told otherwise), as the VOD docs' examples sign. */
export async function call(
  method: string,
  path: string,
  query: Array<[string, string]> = [],
  body?: unknown,
  o: CallOptions = {},
): Promise<Res> {
  const ts = bceTimestamp(o.at ?? Date.now());
  const payload = o.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = { host: `127.0.0.1:${simPort()}`, 'x-bce-date': ts, ...o.headers };
  if (payload !== undefined) {
    headers['content-type'] = o.contentType ?? 'application/json; charset=utf-8';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (o.auth === undefined) {
    headers.authorization = bceSign(
      { method, path, query, headers },
      {
        accessKeyId: o.ak ?? AK,
        secretAccessKey: o.sk ?? SK,
        timestamp: ts,
        expirationSeconds: o.expirationSeconds,
        signedHeaders: o.signedHeaders ?? ['host', 'x-bce-date'],
      },
    ).authorization;
  } else if (o.auth !== 'none') {
    headers.authorization = o.auth;
  }
  const qs = query.map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&');
  return raw(method, qs ? `${path}?${qs}` : path, headers, payload);
}

/** The simulator's control surface (/_sim), read as loose JSON. */
export const getJson = async (path: string): Promise<any> => (await fetch(`${sim.url}${path}`)).json();
export const sim_ = {
  jobs: (): Promise<any[]> => getJson('/_sim/jobs?platform=B'),
  job: async (id: string): Promise<any> => (await sim_.jobs()).find((j) => j.id === id),
  stats: async (): Promise<any> => (await getJson('/_sim/stats')).B,
  post: (path: string, body: unknown) =>
    fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  callbacks: (): Promise<any[]> => getJson('/_sim/callbacks?platform=B'),
};

export const t2v = (model: string, input: Record<string, unknown>) => ({ model, [`model${model.replace(/\./g, '')}TaskInput`]: input });
export const createT2V = (model: string, input: Record<string, unknown>) => call('POST', '/v2/aigc/text_to_video', [], t2v(model, input));
export const createI2V = (model: string, input: Record<string, unknown>) => call('POST', '/v2/aigc/image_to_video', [], t2v(model, input));
export const IMG = { imageUrl: 'https://img.example.com/cat.png' };
export const imageBody = (model: string, extra: Record<string, unknown> = {}, refs = 0, prompt = 'a red fox in snow') => ({
  model,
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: prompt },
        ...Array.from({ length: refs }, (_, i) => ({ type: 'image_url', image_item: { image_url: `https://img.example.com/${i}.png` } })),
      ],
    },
  ],
  ...extra,
});
export const getTask = (id: string) => call('GET', `/v2/tasks/${id}`);
export const finished = (id: string) =>
  waitFor(async () => {
    const r = await getTask(id);
    return ['SUCCESS', 'FAILED'].includes(r.body?.status) ? r.body : undefined;
  }, SIM_JOB_END_BOUND_MS);
