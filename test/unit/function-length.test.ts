/**
 * One bound for every function of the repository: no function in any .ts or .tsx file (gateway, simulator,
 * console, scripts, benches and tests) is longer than MAX_LINES, counted from its first line to its last with the
 * TypeScript compiler's own parse (a nested function counts towards its parent too, so a step moved inside another
 * does not escape). Long work is split into named steps.
 *
 * Two kinds of function are not held to it, each for a reason:
 * - a data table: a function whose whole body returns one expression that is only data (isDataOnly below: literals,
 *   object and array literals of data, references to named values, `as`/`satisfies`), with no call and no function
 *   in it. Its length is the table's, not logic's.
 * - the callback of a test group (`describe`, `describe.each`): a list of tests, each of which is held to the bound.
 *
 * OVER_THE_BOUND lists the functions that were longer than the bound when it was applied everywhere and are not yet
 * split, with their length then. The list may only shrink: a listed function may not grow, one split below the bound
 * must leave the list, and no other function may exceed the bound.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '..', '..');
const MAX_LINES = 60;

/** Folders that hold no source of ours (dependencies, builds, tools, reports). */
const NOT_SOURCE = new Set(['node_modules', 'dist', '.tools', '.git', 'coverage', 'data', 'test-results']);

/**
 * Functions over the bound not yet split (`file name`: its length in lines when the bound was applied everywhere).
 * Remaining work: each is split into named steps and removed from here.
 */
const OVER_THE_BOUND: Readonly<Record<string, number>> = {
  'api/openai-videos/multipart.ts (anonymous)': 91,
  'api/openai-videos/multipart.ts readMultipart': 103,
  'api/openapi-admin.ts registerAdmin': 79,
  'api/openapi-webhooks.ts registerWebhooks': 81,
  'api/routes/admin-keys.ts adminKeyRoutes': 70,
  'api/routes/callbacks.ts callbackRoutes': 70,
  'bench/lighter.ts shapeFigures': 63,
  'bench/push.ts capacityOne': 87,
  'bench/streams.ts measureOnce': 69,
  'console/src/components/chart.tsx BarChart': 75,
  'console/src/pages/accounts.tsx Accounts': 122,
  'console/src/pages/accounts.tsx (callback of useMemo)': 70,
  'console/src/pages/deliveries.tsx Deliveries': 89,
  'console/src/pages/keys.tsx Keys': 129,
  'console/src/pages/overview.tsx Overview': 72,
  'console/src/pages/spend.tsx Spend': 91,
  'console/src/pages/task.tsx Task': 64,
  'console/src/pages/tasks.tsx Tasks': 121,
  'scripts/check-image-build.ts main': 81,
  'test/e2e/events.test.ts (callback of test)': 67,
  'test/e2e/ledger.test.ts (callback of test)': 65,
  'test/e2e/openai-videos.test.ts (callback of test)': 61,
  'test/e2e/operator-cli.test.ts (callback of test)': 62,
  'test/fixtures/record-histories.ts main': 89,
  'test/support/test-api.ts startTestApi': 84,
  'test/system/api-fuzz.test.ts (callback of test)': 87,
  'test/system/cluster.test.ts (callback of test)': 123,
  'test/system/faults-upstream.test.ts (callback of test)': 94,
  'test/system/ledger-faults.test.ts (callback of test)': 64,
  'test/system/npm-start-root.test.ts (callback of )': 81,
  'test/system/npm-start.test.ts (callback of test)': 144,
  'test/system/topology.test.ts (callback of test)': 206,
  'test/unit/results/copy.test.ts route': 73,
  'test/unit/sim/b/tasks.test.ts (callback of test)': 62,
};

/** Every .ts and .tsx file of the repository below `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return NOT_SOURCE.has(name) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

interface LongFunction {
  where: string;
  key: string;
  lines: number;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().split('(')[0]})`;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Whether an expression is only data: literals, object and array literals of data, named values; no call, no function. */
export function isDataOnly(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return isDataOnly(node.expression);
  if (ts.isPrefixUnaryExpression(node)) return ts.isNumericLiteral(node.operand);
  if (ts.isArrayLiteralExpression(node)) return node.elements.every((e) => isDataOnly(ts.isSpreadElement(e) ? e.expression : e));
  if (ts.isObjectLiteralExpression(node))
    return node.properties.every(
      (p) =>
        (ts.isPropertyAssignment(p) && isDataOnly(p.initializer)) ||
        ts.isShorthandPropertyAssignment(p) ||
        (ts.isSpreadAssignment(p) && isDataOnly(p.expression)),
    );
  if (ts.isTemplateExpression(node)) return node.templateSpans.every((s) => isDataOnly(s.expression));
  return (
    ts.isStringLiteralLike(node) ||
    ts.isNumericLiteral(node) ||
    ts.isIdentifier(node) ||
    ts.isPropertyAccessExpression(node) ||
    node.kind === ts.SyntaxKind.TrueKeyword ||
    node.kind === ts.SyntaxKind.FalseKeyword ||
    node.kind === ts.SyntaxKind.NullKeyword
  );
}

/** A function whose whole body returns one expression that is only data. */
function isDataTable(node: ts.FunctionLikeDeclaration): boolean {
  const body = node.body;
  if (!body) return false;
  if (!ts.isBlock(body)) return isDataOnly(body);
  const [only, ...rest] = body.statements;
  return rest.length === 0 && only !== undefined && ts.isReturnStatement(only) && !!only.expression && isDataOnly(only.expression);
}

/** The callback of a test group: `describe(…, () => …)`, `describe.each(…)(…, () => …)` and their skip/only forms. */
function isTestGroup(node: ts.Node): boolean {
  const call = node.parent;
  return !!call && ts.isCallExpression(call) && /^describe\b/.test(call.expression.getText());
}

/** Every function-like node of a file longer than `max` lines, data tables and test groups aside. */
export function longFunctions(file: string, max: number): LongFunction[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const exempt = isDataTable(node as ts.FunctionLikeDeclaration) || isTestGroup(node);
      const name = relative(ROOT, file);
      if (lines > max && !exempt) found.push({ where: `${name}:${first + 1}`, key: `${name} ${functionName(node)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = sourceFiles(ROOT);
const over = files.flatMap((f) => longFunctions(f, MAX_LINES));

describe(`no function is longer than ${MAX_LINES} lines`, () => {
  test('every source file of the repository is measured', () => {
    for (const folder of ['api', 'workflows', 'sim', 'console/src', 'scripts', 'bench', 'test/unit', 'test/system'])
      expect(files.some((f) => relative(ROOT, f).startsWith(`${folder}/`))).toBe(true);
    expect(files.some((f) => f.endsWith('.tsx'))).toBe(true);
  });

  test('no function over the bound except those listed as not yet split, and none of those grew', () => {
    const unlisted = over.filter((f) => !(f.key in OVER_THE_BOUND)).map((f) => `${f.where} ${f.key} (${f.lines} lines)`);
    const grown = over
      .filter((f) => f.key in OVER_THE_BOUND && f.lines > OVER_THE_BOUND[f.key]!)
      .map((f) => `${f.where} ${f.key}: ${f.lines} lines, listed at ${OVER_THE_BOUND[f.key]}`);
    expect({ unlisted, grown }).toEqual({ unlisted: [], grown: [] });
  });

  test('every function listed as not yet split is still over the bound (a split one leaves the list)', () => {
    const stillOver = new Set(over.map((f) => f.key));
    expect(Object.keys(OVER_THE_BOUND).filter((k) => !stillOver.has(k))).toEqual([]);
  });

  test('the measure finds a long function, and sets aside only data tables and test groups (it can fail)', () => {
    expect(longFunctions(join(ROOT, 'test/unit/function-length.test.ts'), 5).map((f) => f.key)).toContain(
      'test/unit/function-length.test.ts longFunctions',
    );
    const expr = (code: string) =>
      (ts.createSourceFile('x.ts', `(${code})`, ts.ScriptTarget.Latest, true).statements[0] as ts.ExpressionStatement).expression;
    expect(isDataOnly(expr("{ a: 1, b: ['x', -2, null], c: { d: NAME, e: `t${'u'}` } } as const"))).toBe(true);
    expect(isDataOnly(expr('{ a: f() }'))).toBe(false);
    expect(isDataOnly(expr('[() => 1]'))).toBe(false);
  });
});
