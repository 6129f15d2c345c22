/**
 * Starting one of the gateway's processes and knowing when it is ready: it prints `ready` (a log line such as
 * "API listening"), or, for a program that says nothing when all is well (the Temporal server at `warn`), a
 * probe answers true. Used by `npm start` (scripts/start.ts), `npm run cluster` (scripts/cluster.ts) and the
 * image check (scripts/check-image-build.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface StartedProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code once it has ended. */
  stop(graceMs: number): Promise<number | null>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A line that says it is ready, or a probe (asked every 250 ms until it resolves true). */
  ready: RegExp | (() => Promise<boolean>);
  readyTimeoutMs: number;
  /** Each line of its stdout and stderr, as it comes. */
  onLine?: (line: string) => void;
  /** Run as this user and group (a root launcher starting a program that refuses root, e.g. PostgreSQL). */
  uid?: number;
  gid?: number;
  /** The signal that asks it to stop (default SIGTERM; PostgreSQL's fast shutdown is SIGINT). */
  stopSignal?: NodeJS.Signals;
  /**
   * A process group of its own: a terminal's Ctrl-C (sent to its whole foreground group) then reaches only the
   * launcher, which stops its parts in dependency order, instead of every part at once.
   */
  detached?: boolean;
}

/** Output kept to explain a failed start. */
const TAIL_CHARS = 2_000;

/** Spawns the process; resolves once a line matches `ready`, rejects (with its last output) if it exits or times out first. */
export function startProcess(opts: StartOptions): Promise<StartedProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.command, opts.args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      uid: opts.uid,
      gid: opts.gid,
      detached: opts.detached,
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.once('exit', (code, signal) => r({ code, signal })),
    );
    const stop = async (graceMs: number) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(opts.stopSignal ?? 'SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(force);
      }
      return (await exited).code;
    };
    let tail = '';
    let started = false;
    let ended = false;
    const ready = () => {
      if (started || ended) return;
      started = true;
      clearTimeout(timer);
      resolve({ child, exited, stop });
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${opts.name} did not start within ${opts.readyTimeoutMs} ms:\n${tail}`));
    }, opts.readyTimeoutMs);
    void exited.then(({ code }) => {
      ended = true;
      clearTimeout(timer);
      if (!started) reject(new Error(`${opts.name} exited with code ${code} during start-up:\n${tail}`));
    });
    const readyLine = opts.ready instanceof RegExp ? opts.ready : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        opts.onLine?.(line);
        tail = `${tail}${line}\n`.slice(-TAIL_CHARS);
        if (readyLine?.test(line)) ready();
      });
    }
    if (!(opts.ready instanceof RegExp)) void probeUntilReady(opts.ready, () => started || ended, ready);
  });
}

/** Asks `probe` every 250 ms until it answers true (then `onReady`) or `done()` says the start is decided. */
async function probeUntilReady(probe: () => Promise<boolean>, done: () => boolean, onReady: () => void): Promise<void> {
  while (!done()) {
    if (await probe().catch(() => false)) return onReady();
    await new Promise((r) => setTimeout(r, 250));
  }
}
