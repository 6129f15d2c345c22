/**
 * Prompt directives let a test steer one simulated job through the gateway, which forwards prompts verbatim:
 *   [sim:fail=content_policy]   the job fails with the platform's content-policy code
 *   [sim:fail=error]            the job fails with a generic generation error
 *   [sim:duration=1500]         the job takes 1500 ms instead of the simulator's default
 *   [sim:never]                 the job never finishes
 *   [sim:submit=429x3]          the first 3 submits carrying this prompt answer 429 (also 500, 503, reset)
 *   [sim:poll=500x4]            the first 4 polls of this job answer 500 (also 429, 503, reset)
 */
export type FaultStatus = 429 | 500 | 503 | 'reset';

export interface Directives {
  fail?: 'content_policy' | 'error';
  durationMs?: number;
  never?: boolean;
  submitFault?: { status: FaultStatus; times: number };
  pollFault?: { status: FaultStatus; times: number };
}

function parseFault(v: string): { status: FaultStatus; times: number } | undefined {
  const m = /^(429|500|503|reset)(?:x(\d+))?$/.exec(v);
  if (!m) return undefined;
  const status = m[1] === 'reset' ? 'reset' : (Number(m[1]) as 429 | 500 | 503);
  return { status, times: m[2] ? Number(m[2]) : 1 };
}

export function parseDirectives(prompt: unknown): Directives {
  const d: Directives = {};
  if (typeof prompt !== 'string') return d;
  for (const m of prompt.matchAll(/\[sim:([a-z_-]+)(?:=([^\]]+))?\]/g)) {
    const [, name, value = ''] = m;
    if (name === 'fail' && (value === 'content_policy' || value === 'error')) d.fail = value;
    if (name === 'duration' && /^\d+$/.test(value)) d.durationMs = Number(value);
    if (name === 'never') d.never = true;
    if (name === 'submit') d.submitFault = parseFault(value);
    if (name === 'poll') d.pollFault = parseFault(value);
  }
  return d;
}
