/**
 * No helper is copied between test files: a helper two test files need lives once, in
 * test/support/ (or a folder's own support module), and both import it. Checked on the source: every top-level
 * function declaration and every top-level `const name = <arrow or function>` in test/ and bench/ is collected, and
 * two files declaring the same name with the same body (whitespace normalised) — or with a body that differs only
 * in its types, literals or a word here and there (token similarity at or above COPY_SIMILARITY) — fail the test.
 * A copy that drifted a little is still a copy: that is how the shared helpers this test replaced had diverged.
 * And test files mirror the code: test/unit/platforms/<x>/ and test/unit/sim/<x>/ hold one file per production file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { tsFiles } from '../support/source-files';

const ROOT = resolve(__dirname, '..', '..');
const SCANNED = ['test', 'bench'];

/** Two bodies of one name at or above this token similarity (Dice coefficient on token bigrams) are a copy. */
const COPY_SIMILARITY = 0.8;

/** Names allowed to repeat, each with its reason; keep it short. Empty: every copy so far was worth sharing. */
const ALLOWED: Record<string, string> = {};

export interface Helper {
  file: string;
  name: string;
  line: number;
  body: string;
}

/** Top-level function declarations and `const x = () => …` / `const x = function …` of one file. */
export function topLevelHelpers(file: string, text = readFileSync(file, 'utf8')): Helper[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const helpers: Helper[] = [];
  const add = (name: string, node: ts.Node) =>
    helpers.push({
      file: relative(ROOT, file),
      name,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      body: node.getText(source).replace(/\s+/g, ' '),
    });
  for (const stmt of source.statements) {
    if (ts.isFunctionDeclaration(stmt) && stmt.name && stmt.body) add(stmt.name.text, stmt);
    if (ts.isVariableStatement(stmt)) {
      for (const decl of stmt.declarationList.declarations) {
        const init = decl.initializer;
        if (ts.isIdentifier(decl.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) add(decl.name.text, init);
      }
    }
  }
  return helpers;
}

/** Bodies compared without the declaration's own name, `export`, `async` and `function` keywords. */
function comparable(h: Helper): string {
  return h.body.replace(/^(export )?(async )?function\*? ?\w*/, '').trim();
}

function tokens(body: string): string[] {
  return body.match(/[A-Za-z_$][\w$]*|\d+|\S/g) ?? [];
}

export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const bigrams = (t: string[]) => {
    const m = new Map<string, number>();
    for (let i = 0; i + 1 < t.length; i++) m.set(`${t[i]} ${t[i + 1]}`, (m.get(`${t[i]} ${t[i + 1]}`) ?? 0) + 1);
    return m;
  };
  const x = bigrams(tokens(a));
  const y = bigrams(tokens(b));
  let shared = 0;
  for (const [k, n] of x) shared += Math.min(n, y.get(k) ?? 0);
  const total = [...x.values(), ...y.values()].reduce((s, n) => s + n, 0);
  return total === 0 ? 0 : (2 * shared) / total;
}

/** Pairs of helpers of the same name, in different files, whose bodies are the same or nearly so. */
export function copiedHelpers(helpers: Helper[]): string[] {
  const byName = new Map<string, Helper[]>();
  for (const h of helpers) byName.set(h.name, [...(byName.get(h.name) ?? []), h]);
  const copies: string[] = [];
  for (const [name, same] of byName) {
    if (name in ALLOWED) continue;
    for (let i = 0; i < same.length; i++) {
      for (let j = i + 1; j < same.length; j++) {
        const [a, b] = [same[i]!, same[j]!];
        if (a.file === b.file) continue;
        const s = similarity(comparable(a), comparable(b));
        if (s >= COPY_SIMILARITY) copies.push(`${name}: ${a.file}:${a.line} and ${b.file}:${b.line} (similarity ${s.toFixed(2)})`);
      }
    }
  }
  return copies;
}

describe("the test suite's structure", () => {
  const helpers = SCANNED.flatMap((d) => tsFiles(join(ROOT, d), ['fixtures'])).flatMap((f) => topLevelHelpers(f));

  test('the scan sees the helpers (it is not vacuous)', () => {
    const names = new Set(helpers.map((h) => h.name));
    for (const known of ['waitFor', 'startReceiver', 'sha', 'scrape']) expect(names).toContain(known);
  });

  test('the detector flags a copy, a drifted copy, and not two different helpers of one name', () => {
    const h = (file: string, text: string) => topLevelHelpers(join(ROOT, file), text);
    const sha = "const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');";
    const drifted = "const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');";
    const other = 'function sha(x: number) { return x * 2; }';
    expect(copiedHelpers([...h('test/a.ts', sha), ...h('test/b.ts', `\n\n${sha.replace(/ /g, '  ')}`)])).toEqual([
      expect.stringMatching(/^sha: test\/a\.ts:1 and test\/b\.ts:3 \(similarity 1\.00\)$/),
    ]);
    expect(copiedHelpers([...h('test/a.ts', sha), ...h('bench/b.ts', drifted)])).toHaveLength(1);
    expect(copiedHelpers([...h('test/a.ts', sha), ...h('test/b.ts', other)])).toEqual([]);
    expect(copiedHelpers([...h('test/a.ts', `${sha}\nfunction x() {}`)])).toEqual([]);
  });

  test('no top-level helper of test/ or bench/ is copied into another file', () => {
    expect(copiedHelpers(helpers)).toEqual([]);
  });

  // Test files mirror the code (docs/guides/develop.md, "Tests"): a platform's and the simulator's unit tests are named after the
  // file they test (a second file of the same one names its aspect after a dot, as test-layout.test.ts has it), in a
  // folder named after the production folder.
  test.each([
    ['platforms', 'test/unit/platforms'],
    ['sim', 'test/unit/sim'],
  ])('every %s/<x>/ has its test folder, and each test file there names a file of that folder', (code, tests) => {
    // Code folders only (sim/assets holds media, no code).
    const folders = readdirSync(join(ROOT, code), { withFileTypes: true })
      .filter((d) => d.isDirectory() && readdirSync(join(ROOT, code, d.name)).some((f) => f.endsWith('.ts')))
      .map((d) => d.name);
    expect(folders.filter((x) => !existsSync(join(ROOT, tests, x)))).toEqual([]);
    const strays = folders.flatMap((x) =>
      readdirSync(join(ROOT, tests, x))
        .filter((f) => f.endsWith('.test.ts') && !existsSync(join(ROOT, code, x, `${f.split('.')[0]}.ts`)))
        .map((f) => `${tests}/${x}/${f}`),
    );
    expect(strays).toEqual([]);
  });
});
