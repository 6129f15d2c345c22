/**
 * Unit tests mirror the code they test: test/unit/<folder>/<file>.test.ts tests <folder>/<file>.ts, so the test of a
 * file is found from the file, and a file without one shows. A second test file of the same source names its aspect
 * after a dot (`submit.routes.test.ts` tests activities/submit.ts); a folder's index.ts is its `index`. Tests that
 * hold the repository as a whole, not one file, are listed in CROSS_CUTTING with the reason each has no one file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const UNIT = join(ROOT, 'test', 'unit');

/** Unit tests of the repository as a whole, each with why it mirrors no one file. */
export const CROSS_CUTTING: Readonly<Record<string, string>> = {
  'architecture.test.ts':
    'the floors, the platform skeleton, import cycles, wire names and the rooms (doors, webhooks, money, configuration, routers, operations, file sizes, the submit state), over every source folder',
  'docs/links.test.ts': 'every relative link and anchor of every Markdown page of the repository',
  'docs/named-paths.test.ts': 'every file a comment or a document names exists, over every tracked text file',
  'docs/self-contained.test.ts': 'no tracked text file points outside the repository or at an issue number',
  'dependencies.test.ts': "package.json's dependencies against what the image's code and the npm scripts load",
  'env-docs.test.ts': "every process's configuration variables against .env.example and the configuration reference",
  'function-length.test.ts': 'the function-length bound, over every source file',
  'replay.test.ts': 'the replay gate: every recorded history against the current workflow code',
  'test-helpers.test.ts': 'no helper copied between test files, over test/ and bench/',
  'test-layout.test.ts': 'this layout, over test/unit/',
  'unconfirmed.test.ts': "every platform's unconfirmed facts, each with its override, against the catalogue and docs/api.md",
  'workflow-versions.test.ts': "the workflow patches against CHANGELOG.md and the versioning page's patch table",
};

/** Every test file under test/unit/, relative to it. */
function unitTests(dir = UNIT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? unitTests(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [relative(UNIT, join(dir, e.name))] : [],
  );
}

/** The source file a unit test mirrors (`<folder>/<file>[.<aspect>].test.ts` → `<folder>/<file>.ts(x)` or `<folder>/<file>/index.ts`), if it exists. */
export function mirroredSource(test: string, root = ROOT): string | undefined {
  const parts = test.replace(/\.test\.ts$/, '').split('/');
  const file = parts.pop()!.split('.')[0]!;
  const base = [...parts, file].join('/');
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((candidate) => existsSync(join(root, candidate)));
}

describe('unit tests mirror the code they test', () => {
  const tests = unitTests();

  test('every unit test file mirrors an existing source file, or is a listed cross-cutting test', () => {
    expect(tests.length).toBeGreaterThan(100);
    expect(tests.filter((t) => !(t in CROSS_CUTTING) && mirroredSource(t) === undefined)).toEqual([]);
  });

  test('every listed cross-cutting test exists and mirrors no source file', () => {
    expect(Object.keys(CROSS_CUTTING).filter((t) => !tests.includes(t) || mirroredSource(t) !== undefined)).toEqual([]);
  });

  test('the mirror is found from the path (it can fail)', () => {
    expect(mirroredSource('activities/submit.failover.test.ts')).toBe('activities/submit.ts');
    expect(mirroredSource('activities/index.poll.test.ts')).toBe('activities/index.ts');
    expect(mirroredSource('sim/v/validation.test.ts')).toBe('sim/v/validation.ts');
    expect(mirroredSource('activities-submit-failover.test.ts')).toBeUndefined();
    expect(mirroredSource('api/no-such-file.test.ts')).toBeUndefined();
  });
});
