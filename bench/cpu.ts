/**
 * CPU time by process role, from Linux's /proc: each process's user + system time (clock ticks of 10 ms), so a
 * benchmark can say where a task's cost goes — the gateway's API and worker, the Temporal server, PostgreSQL, the
 * simulated platform, the floor's worker, the load generator. A snapshot at the start and at the end of a window;
 * processes that start inside it count from zero. Only the benchmark's own processes count.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export type Role = 'api' | 'worker' | 'temporal' | 'postgres' | 'sim' | 'floor-worker' | 'load';

/** The role of a process, from its command line; undefined for processes the benchmark does not run. */
function roleOf(pid: number, cmdline: string, comm: string): Role | undefined {
  if (pid === process.pid) return 'load';
  if (cmdline.includes('api/main.ts') || cmdline.includes('dist/api/main.js')) return 'api';
  if (cmdline.includes('worker/main.ts') || cmdline.includes('dist/worker/main.js')) return 'worker';
  if (cmdline.includes('bench/floor/worker.ts')) return 'floor-worker';
  if (cmdline.includes('sim/main.ts')) return 'sim';
  if (comm === 'postgres') return 'postgres';
  if (/\btemporal(-server)?\b/.test(comm) || /temporal(-server)?\s.*(start-dev|start)/.test(cmdline)) return 'temporal';
  return undefined;
}

/** A process's command line, its arguments joined by spaces ('' once it has ended). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export type CpuSnapshot = Map<number, { role: Role; ticks: number }>;

/**
 * Every process of this benchmark — this one and its descendants (the stacks it started, their servers and
 * PostgreSQL's backends) — with its role and CPU ticks so far. Processes of anything else running on the machine
 * (another benchmark, tests) are left out.
 */
export function cpuSnapshot(): CpuSnapshot {
  const all = new Map<number, { ppid: number; comm: string; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; the fields after it are space-separated: state, ppid, …
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      // utime and stime are fields 14 and 15 of the stat line (11 and 12 after comm and state).
      all.set(Number(name), {
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf('(') + 1, close),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // the process ended between the listing and the read
    }
  }
  const ours = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = all.get(p)?.ppid, hops++)
      if (p === process.pid) return true;
    return false;
  };
  const out: CpuSnapshot = new Map();
  for (const [pid, proc] of all) {
    if (!ours(pid)) continue;
    const role = roleOf(pid, commandLine(pid), proc.comm);
    if (role) out.set(pid, { role, ticks: proc.ticks });
  }
  return out;
}

/** CPU milliseconds each role spent between two snapshots. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Partial<Record<Role, number>> {
  const out: Partial<Record<Role, number>> = {};
  for (const [pid, { role, ticks }] of after) {
    const spent = ticks - (before.get(pid)?.ticks ?? 0);
    out[role] = (out[role] ?? 0) + (spent * 1000) / TICKS_PER_SECOND;
  }
  return out;
}
