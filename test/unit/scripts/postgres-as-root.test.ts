/**
 * scripts/postgres-as-root.ts: where a root launcher's PostgreSQL (which runs as an unprivileged user) finds its data
 * directory. The directories made above a data directory are never 0700; as root, a data directory its user cannot
 * reach in place is made under ROOT_SHARED_DIR and linked from where it was asked for, and found again through the
 * link. With the real `npm start`: test/system/npm-start-root.test.ts.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { canReach, dataDirectoryFor, ROOT_SHARED_DIR, serverUser } from '../../../scripts/postgres-as-root';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (mode: number) => {
  const dir = mkdtempSync(join(tmpdir(), 'mediagate-pg-dirs-'));
  chmodSync(dir, mode);
  made.push(dir);
  return dir;
};

test('the directories above a data directory are made enterable (only the data directory itself is 0700, by initdb)', () => {
  const top = tempDir(0o755);
  const asked = join(top, 'a', 'b', 'postgres');
  expect(dataDirectoryFor(asked, undefined)).toBe(asked);
  for (const dir of [join(top, 'a'), join(top, 'a', 'b')]) expect([dir, statSync(dir).mode & 0o001]).toEqual([dir, 0o001]);
  expect(existsSync(asked)).toBe(false);
});

(process.getuid?.() === 0 ? describe : describe.skip)('as root', () => {
  const user = serverUser()!;

  test('a data directory its user can reach stays where it was asked for', () => {
    const asked = join(tempDir(0o755), 'data', 'postgres');
    expect(dataDirectoryFor(asked, user)).toBe(asked);
    expect(canReach(user, dirname(asked))).toBe(true);
  });

  test('one inside a directory only root may enter is made under ROOT_SHARED_DIR, linked from where it was asked for, and found again', () => {
    const home = tempDir(0o700);
    const asked = join(home, 'clone', 'data', 'postgres');
    const logged: string[] = [];
    const kept = dataDirectoryFor(asked, user, (m) => logged.push(m));
    made.push(kept);
    expect(canReach(user, dirname(asked))).toBe(false);
    expect(dirname(kept)).toBe(ROOT_SHARED_DIR);
    expect([lstatSync(asked).isSymbolicLink(), readlinkSync(asked)]).toEqual([true, kept]);
    expect(canReach(user, ROOT_SHARED_DIR)).toBe(true);
    expect(logged).toEqual([
      `PostgreSQL runs as ${user.name}, which cannot enter ${dirname(asked)}: its data directory is ${kept} (${asked} links to it)`,
    ]);
    expect(dataDirectoryFor(asked, user)).toBe(kept);
    // Another clone at the same path later (the link gone with it) never picks up the earlier one's data.
    rmSync(asked);
    const again = dataDirectoryFor(asked, user);
    made.push(again);
    expect(again).not.toBe(kept);
  });

  test('an existing data directory its user cannot reach is an error that says what to do', () => {
    const home = tempDir(0o700);
    const asked = join(home, 'postgres');
    mkdirSync(asked);
    expect(() => dataDirectoryFor(asked, user)).toThrow(/cannot enter: move it where that user can reach it \(EMBEDDED_POSTGRES_DIR\)/);
  });
});
