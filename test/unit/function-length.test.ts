/**
 * Long functions that do I/O are split into named steps, and stay split: no function in the
 * files below is longer than MAX_LINES, counted from its first line to its last with the TypeScript compiler's
 * own parse (a nested function counts towards its parent too, so a step moved inside another does not escape).
 * Edit the list to hold another file or folder to the same bound.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
const MAX_LINES = 60;

/** Files and folders (every .ts file below them) held to MAX_LINES. */
const CHECKED = [
  'results',
  'ledger',
  'worker',
  'sim/server.ts',
  'sim/state.ts',
  'sim/platform-host.ts',
  'sim/answers.ts',
  'sim/control.ts',
  'sim/transitions.ts',
  'api/openapi.ts',
];

function tsFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((name) =>
    name.endsWith('.ts') || statSync(join(full, name)).isDirectory() ? tsFiles(join(path, name)) : [],
  );
}

interface LongFunction {
  where: string;
  name: string;
  lines: number;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Every function-like node of a file longer than `max` lines. */
export function longFunctions(file: string, max: number): LongFunction[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ where: `${relative(ROOT, file)}:${first + 1}`, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe(`no function in ${CHECKED.join(', ')} is longer than ${MAX_LINES} lines`, () => {
  test.each(CHECKED)('%s', (path) => {
    const files = tsFiles(path);
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => longFunctions(f, MAX_LINES))).toEqual([]);
  });

  test('the measure finds a long function (it can fail)', () => {
    expect(longFunctions(join(ROOT, 'test/unit/function-length.test.ts'), 5).map((f) => f.name)).toContain('longFunctions');
  });
});
