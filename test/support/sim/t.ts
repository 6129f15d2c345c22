/**
 * The platform T simulator's test harness, shared by test/unit/sim/t/*: one simulator per test file (reset before
 * each test, T's event queue included), TC3-signed calls to it, and request bodies of a valid shape.
 */
import { SIM_ACCOUNTS, type SimTAccount } from '../../../sim/accounts';
import { signTRequest } from '../../../sim/t';
import { startReceiver } from '../receiver';
import { SIM_JOB_END_BOUND_MS, simulatorFixture, statsOf } from '../simulator';
import { waitFor } from '../wait-for';

export const ACC = SIM_ACCOUNTS.T;
export const SUB = ACC.subAppId;

const fixture = simulatorFixture({ jobDurationMs: 400 }, async (sim) => {
  sim.reset();
  await fetch(`${sim.url}/_sim/t/reset`, { method: 'POST' });
});
export const sim = fixture.sim;
/** Call once at the top of a test file: a simulator for its tests. */
export const useTSimulator = fixture.use;

export interface CallOptions {
  secretId?: string;
  secretKey?: string;
  timestamp?: number;
  service?: string;
  version?: string;
  /** Changes the headers after signing. */
  tamper?: (h: Record<string, string>) => void;
  /** Sends other bytes than the ones signed. */
  sentBody?: string;
}

export type TResponse = Record<string, any> & { Error?: { Code: string; Message: string }; RequestId: string };

export async function tRaw(action: string, body: unknown, o: CallOptions = {}): Promise<{ status: number; json: { Response: TResponse } }> {
  const text = JSON.stringify(body);
  const headers = signTRequest({
    secretId: o.secretId ?? ACC.secretId,
    secretKey: o.secretKey ?? ACC.secretKey,
    host: new URL(sim.url).host,
    action,
    body: text,
    timestamp: o.timestamp,
    service: o.service,
    version: o.version,
  });
  delete headers.Host;
  o.tamper?.(headers);
  const res = await fetch(`${sim.url}/`, { method: 'POST', headers, body: o.sentBody ?? text });
  return { status: res.status, json: (await res.json()) as { Response: TResponse } };
}

export async function t(action: string, body: unknown, o: CallOptions = {}): Promise<TResponse> {
  const { status, json } = await tRaw(action, body, o);
  expect(status).toBe(200);
  expect(typeof json.Response.RequestId).toBe('string');
  return json.Response;
}

/** Call options signing with one of the simulator's T accounts. */
export const signedBy = (account: SimTAccount): CallOptions => ({ secretId: account.secretId, secretKey: account.secretKey });
/** POST (a fault) or DELETE (all faults) /_sim/t/account-faults. */
export const accountFaults = (method: 'POST' | 'DELETE', fault?: unknown) =>
  fetch(`${sim.url}/_sim/t/account-faults`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: fault === undefined ? undefined : JSON.stringify(fault),
  });

export const errCode = async (action: string, body: unknown, o: CallOptions = {}) => (await t(action, body, o)).Error?.Code;

export const video = (over: Record<string, unknown> = {}) => ({
  SubAppId: SUB,
  ModelName: 'GV',
  ModelVersion: '3.1',
  Prompt: 'a cat',
  ...over,
});
export const image = (over: Record<string, unknown> = {}) => ({
  SubAppId: SUB,
  ModelName: 'GG',
  ModelVersion: '2.5',
  Prompt: 'a cat',
  ...over,
});
export const detail = (TaskId: string) => t('DescribeTaskDetail', { SubAppId: SUB, TaskId });
export const stats = statsOf(sim, 'T');

export async function finished(taskId: string): Promise<TResponse> {
  return waitFor(async () => {
    const d = await detail(taskId);
    return d.Status === 'FINISH' ? d : undefined;
  }, SIM_JOB_END_BOUND_MS);
}

// ------------------------------------------------------------------ a receiver for PUSH events
export const receiver = () => startReceiver('/vod-events');
