/**
 * The layout's promises, checked on the source: no import cycles between the gateway's modules (type-only
 * imports included: a cycle of types is still two files that cannot be understood apart), and the simulator
 * independent of the gateway (ESLint enforces it too; this also covers imports ESLint's pattern cannot see).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const SOURCE_DIRS = ['api', 'activities', 'core', 'platforms', 'results', 'workflows', 'worker', 'sim', 'scripts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, resolved to files (`./x` → x.ts or x/index.ts). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.flatMap((spec) => {
    const base = resolve(dirname(file), spec);
    for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
      try {
        if (statSync(candidate).isFile()) return [candidate];
      } catch {
        // try the next form
      }
    }
    return [];
  });
}

const files = SOURCE_DIRS.flatMap((d) => tsFiles(join(ROOT, d)));
const graph = new Map(files.map((f) => [f, importsOf(f)]));

function findCycles(): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'visiting');
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next].map((p) => relative(ROOT, p)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

describe('architecture', () => {
  test('the graph is real: the registry imports every platform folder', () => {
    const registry = graph.get(join(ROOT, 'platforms', 'index.ts'))!.map((p) => relative(ROOT, p));
    expect(registry).toEqual(expect.arrayContaining(['platforms/t/index.ts', 'platforms/b/index.ts', 'platforms/v/index.ts']));
  });

  test('no import cycles', () => {
    expect(findCycles()).toEqual([]);
  });

  test('nothing under sim/ imports the gateway', () => {
    const leaks = files
      .filter((f) => relative(ROOT, f).startsWith('sim/'))
      .flatMap((f) => importsOf(f).filter((dep) => !relative(ROOT, dep).startsWith('sim/')).map((dep) => `${relative(ROOT, f)} → ${relative(ROOT, dep)}`));
    expect(leaks).toEqual([]);
  });
});
