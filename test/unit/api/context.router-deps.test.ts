/**
 * Routers get what they use: every function of the API's routes that takes the app's dependencies names the fields
 * it reads (`deps: Pick<AppDeps, 'tasks' | …>`, api/context.ts), and reads every field it names — itself, or through
 * a function it hands `deps` to. The compiler holds the other half (a field read but not named does not compile).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { tsFiles } from '../../support/source-files';

const ROOT = resolve(__dirname, '..', '..', '..');

interface DepsFunction {
  file: string;
  name: string;
  /** The fields its `deps` type names; undefined: `deps: AppDeps` whole, or another type. */
  fields: string[] | undefined;
  /** The fields it reads itself (`deps.x`, `const { x } = deps`). */
  reads: Set<string>;
  /** The functions it hands `deps` to, by name. */
  handsTo: string[];
}

/** `Pick<AppDeps, 'a' | 'b'>`, or a type of the same file declared so, → ['a', 'b']; anything else → undefined. */
function pickedFields(type: ts.TypeNode | undefined, aliases: ReadonlyMap<string, ts.TypeNode>): string[] | undefined {
  if (type && ts.isTypeReferenceNode(type) && aliases.has(type.typeName.getText()))
    return pickedFields(aliases.get(type.typeName.getText()), new Map());
  if (!type || !ts.isTypeReferenceNode(type) || type.typeName.getText() !== 'Pick') return undefined;
  const [from, keys] = type.typeArguments ?? [];
  if (from?.getText() !== 'AppDeps' || !keys) return undefined;
  const members = ts.isUnionTypeNode(keys) ? keys.types : [keys];
  return members.map((m) => m.getText().replace(/^['"]|['"]$/g, ''));
}

/** What a function body does with `deps`. */
function usesOf(body: ts.Node): { reads: Set<string>; handsTo: string[] } {
  const reads = new Set<string>();
  const handsTo: string[] = [];
  const isDeps = (n: ts.Node) => ts.isIdentifier(n) && n.text === 'deps';
  const visit = (n: ts.Node): void => {
    if ((ts.isPropertyAccessExpression(n) || ts.isPropertyAccessChain(n)) && isDeps(n.expression)) reads.add(n.name.text);
    if (ts.isVariableDeclaration(n) && n.initializer && isDeps(n.initializer) && ts.isObjectBindingPattern(n.name)) {
      for (const el of n.name.elements) reads.add((el.propertyName ?? el.name).getText());
    }
    if (ts.isCallExpression(n) && n.arguments.some(isDeps)) {
      const callee = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : n.expression.getText();
      handsTo.push(callee);
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return { reads, handsTo };
}

/** Every function declaration in `file` with a parameter named `deps`. */
function depsFunctions(file: string, text = readFileSync(file, 'utf8')): DepsFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: DepsFunction[] = [];
  const aliases = new Map<string, ts.TypeNode>();
  for (const s of source.statements) if (ts.isTypeAliasDeclaration(s)) aliases.set(s.name.text, s.type);
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name && n.body) {
      const param = n.parameters.find((p) => p.name.getText() === 'deps');
      if (param) out.push({ file, name: n.name.text, fields: pickedFields(param.type, aliases), ...usesOf(n.body) });
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

/** The fields a function names but reads neither itself nor through the functions it hands `deps` to. */
function unusedFields(fn: DepsFunction, all: readonly DepsFunction[]): string[] {
  const used = new Set(fn.reads);
  for (const name of fn.handsTo) {
    // The callee in the same file first (two files may each have a `ledgerOf`), else the one of that name.
    const callee = all.find((f) => f.name === name && f.file === fn.file) ?? all.find((f) => f.name === name);
    if (!callee?.fields) return [`hands deps to ${name}, which does not name its fields`];
    for (const field of callee.fields) used.add(field);
  }
  return (fn.fields ?? []).filter((f) => !used.has(f));
}

const ROUTE_FILES = [...tsFiles(join(ROOT, 'api', 'routes')), ...tsFiles(join(ROOT, 'api', 'openai-videos'))];
const functions = ROUTE_FILES.flatMap((f) => depsFunctions(f));

describe('routers get what they use', () => {
  test('the routers are found', () => {
    expect(functions.map((f) => f.name)).toEqual(expect.arrayContaining(['generationRoutes', 'callbackRoutes', 'videoRoutes']));
  });

  test.each(functions.map((f) => [`${f.file.slice(ROOT.length + 1)} ${f.name}`, f] as const))(
    '%s names its fields: deps: Pick<AppDeps, …>',
    (_, fn) => {
      expect(fn.fields).toBeDefined();
    },
  );

  test.each(functions.map((f) => [`${f.file.slice(ROOT.length + 1)} ${f.name}`, f] as const))('%s reads every field it names', (_, fn) => {
    expect(unusedFields(fn, functions)).toEqual([]);
  });

  test('the check sees a field named and never read, a whole AppDeps, and a field read through a helper', () => {
    const text = `
      function helper(deps: Pick<AppDeps, 'tasks'>) { return deps.tasks; }
      export function fineRoutes(router: R, deps: Pick<AppDeps, 'tasks' | 'logger'>) { deps.logger.info('x'); helper(deps); }
      export function unusedRoutes(router: R, deps: Pick<AppDeps, 'tasks' | 'catalogue'>) { const { tasks } = deps; }
      export function wholeRoutes(router: R, deps: AppDeps) { deps.tasks; }
      type NamedDeps = Pick<AppDeps, 'keys' | 'limits'>;
      export function namedRoutes(router: R, deps: NamedDeps) { deps.keys; }`;
    const fns = depsFunctions('/x/control.ts', text);
    const byName = (name: string) => fns.find((f) => f.name === name)!;
    expect(unusedFields(byName('fineRoutes'), fns)).toEqual([]);
    expect(unusedFields(byName('unusedRoutes'), fns)).toEqual(['catalogue']);
    expect(byName('wholeRoutes').fields).toBeUndefined();
    expect(unusedFields(byName('namedRoutes'), fns)).toEqual(['limits']);
  });
});
