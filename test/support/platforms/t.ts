/**
 * Platform T's test fixtures, shared by test/unit/platforms/t/*: the simulated account, the create options, a strict
 * platform T's verdict (sim/t's validators), and a fake T API answering each action from a script.
 */
import type { HttpClient } from '../../../platforms/http';
import type { PlatformTSettings } from '../../../platforms/t/adapter';
import type { TCreateOptions } from '../../../platforms/t/request-body';
import { SIM_ACCOUNTS } from '../../../sim/accounts';
import { validateImageCreate, validateVideoCreate } from '../../../sim/t';
import { fakeHttp, simVerdict, type Kind } from '../platform-kit';

export const SUB = SIM_ACCOUNTS.T.subAppId;
export const IMG = 'https://x.test/a.png';
export const IMG2 = 'https://x.test/b.png';

export const OPTS: TCreateOptions = { subAppId: SUB, dedupKey: 'task_abc-0123456789abcdef', taskId: 'task_abc' };

/** What the simulator (a strict platform T) says about a body: undefined when accepted, else its error code. */
export function tSimVerdict(kind: Kind, body: unknown): string | undefined {
  return simVerdict(() => (kind === 'video' ? validateVideoCreate(body, SUB) : validateImageCreate(body, SUB)));
}

export type Sent = { method: string; url: string; headers: Record<string, string>; action: string; body: any };

/** A fake HttpClient answering each action from `replies` (a list per action, or a function of the body). */
export function fakeT(replies: Record<string, unknown[] | ((body: any) => unknown)>): { http: HttpClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const http = fakeHttp((call) => {
    const action = call.headers?.['x-tc-action'] ?? '';
    const body = JSON.parse(call.body ?? '{}');
    sent.push({ method: call.method, url: call.url, headers: call.headers ?? {}, action, body });
    const r = replies[action];
    const reply = typeof r === 'function' ? r(body) : r?.shift();
    if (reply === undefined) throw new Error(`unexpected ${action}`);
    return { status: 200, body: { Response: { ...(reply as object), RequestId: 'r' } } };
  });
  return { http, sent };
}

export const SETTINGS: PlatformTSettings = {
  endpoint: 'http://127.0.0.1:8090',
  secretId: 'AKIDtest',
  secretKey: 'key',
  subAppId: 7,
  region: 'ap-guangzhou',
};
export const NOW = 1767225600_000;
