/**
 * A project script started as a user starts it (`node --import tsx scripts/<name>.ts`, what `npm start` and `npm run
 * cluster` run): its output lines as they come, a bounded wait for a line, its exit. For the system tests of those
 * commands.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO } from './stack';

export interface ScriptProcess {
  child: ChildProcess;
  /** Every line it printed (stdout and stderr), in order. */
  lines: string[];
  exited: Promise<number | null>;
  /** The first line from index `after` on that matches `re` (waiting for it, bounded by `ms`). */
  waitFor(re: RegExp, ms: number, after?: number): Promise<RegExpExecArray>;
  /**
   * Ctrl-C as a terminal sends it: SIGINT to the script's whole process group (the script and every process that
   * stayed in its group), not to the script alone.
   */
  interrupt(): void;
}

/** `cwd`: where it runs (default the repository; a copy of it elsewhere runs its own scripts). */
export function startScript(script: string, env: NodeJS.ProcessEnv, cwd: string = REPO): ScriptProcess {
  // A process group of its own, as a shell gives a command it runs in the foreground: interrupt() reaches the group.
  const child = spawn(process.execPath, ['--import', 'tsx', join(cwd, script)], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      for (const w of [...waiters]) {
        const m = w.re.exec(line);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
        }
      }
    });
  }
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitFor = (re: RegExp, ms: number, after = 0) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const seen = lines
        .slice(after)
        .map((l) => re.exec(l))
        .find(Boolean);
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => reject(new Error(`no line matching ${re} within ${ms} ms; last:\n${lines.slice(-30).join('\n')}`)),
        ms,
      );
      waiters.push({ re, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  const interrupt = () => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
  };
  return { child, lines, exited, waitFor, interrupt };
}
