/** The repository's tracked files, as a person who clones it gets them (git's index, not the work tree's leftovers). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..', '..');

/** Recorded as they are, not written by a person: Temporal's histories and npm's lock file. */
const RECORDED = [/^test\/fixtures\/histories\//, /^package-lock\.json$/];
const BINARY = /\.(png|jpe?g|gif|webp|ico|mp4|zip|gz)$/i;

/** Every tracked file, repository-relative, with `/` separators. */
export function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
}

/** The tracked files a person wrote as text (code, docs, tests, configuration), with their contents. */
export function trackedTextFiles(): { path: string; text: string }[] {
  return trackedFiles()
    .filter((path) => !BINARY.test(path) && !RECORDED.some((r) => r.test(path)))
    .map((path) => ({ path, text: readFileSync(join(REPO, path), 'utf8') }));
}
