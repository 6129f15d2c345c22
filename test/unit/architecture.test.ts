/**
 * The layout's promises, checked on the source: every folder imports only from the floors below it
 * (scripts/layers.json, which ESLint enforces too: nothing imports upward, api/ and worker/ never import each
 * other), no import cycles between the gateway's modules (type-only imports included: a cycle of types is still
 * two files that cannot be understood apart), and the simulator independent of the gateway.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { tsFiles } from '../support/source-files';

const ROOT = resolve(__dirname, '..', '..');
const SOURCE_DIRS = [
  'api',
  'activities',
  'core',
  'platforms',
  'pricing',
  'ledger',
  'keys',
  'tasks',
  'results',
  'workflows',
  'worker',
  'sim',
  'console',
  'scripts',
];
/** The floors: which folders each may import from (docs/architecture.md, "The floors of the house"). */
const { LAYERS } = JSON.parse(readFileSync(join(ROOT, 'scripts', 'layers.json'), 'utf8')) as { LAYERS: Record<string, string[]> };

/** Relative imports of a file, resolved to files (`./x` → `<x>.ts` or `<x>/index.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.flatMap((spec) => {
    const base = resolve(dirname(file), spec);
    for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
      try {
        if (statSync(candidate).isFile()) return [candidate];
      } catch {
        // try the next form
      }
    }
    return [];
  });
}

/** The console's components are .tsx (JSX for the browser); they are sources of the graph like the rest. */
const tsxFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.tsx'))
    .map((f) => join(dir, f));
const files = [...SOURCE_DIRS.flatMap((d) => tsFiles(join(ROOT, d))), ...tsxFiles(join(ROOT, 'console'))];
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

/**
 * Every platform folder has the same skeleton: one role, one file name, in every folder, so a fourth platform
 * starts as a copy of a folder whose files are named like the others (docs/guides/add-a-model-or-platform.md, "A new platform").
 */
export const PLATFORM_ROLES = {
  'index.ts': 'the PlatformDefinition the registry lists',
  'config.ts': "the platform's configuration slice (public and worker variables)",
  'models.ts': "the platform's model records",
  'request-fields.ts': 'request fields only this platform carries',
  'rules.ts': "the platform's request rules",
  'adapter.ts': 'the PlatformAdapter: signs and sends submit, poll, cancel',
  'request-body.ts': 'a validated request → the create call (pure)',
  'replies.ts': "the platform's answers read: statuses, results, classified errors (pure)",
  'lost-answer.ts': 'finding the job a create whose answer was lost made',
  'announcements.ts': "the platform's announcements (callbacks or pulled events) → hints",
  'wire-types.ts': 'the wire shapes (from the official SDK where one exists)',
  'unconfirmed.ts': "the platform's facts no public source confirms, each with its override",
} as const;
/** Roles only some platforms have; where present, they carry this name. */
export const OPTIONAL_PLATFORM_ROLES = {
  'signing.ts': 'request signatures (T TC3, B bce-auth-v1; V sends a bearer key)',
  'doc-sections.ts': "parts of docs/api.md rendered from the platform's data",
  'job-claims.ts': 'which submit owns which job, where the platform has no dedup key',
  'video-inputs.ts': 'which endpoint and images a video request carries, where the platform splits endpoints by input',
  'model-spec.ts': 'the shape of model facts the platform tags with evidence',
  'models-file.ts': "the operator's models-file override",
  'prices.ts': "what the platform charges per model, with each price's currency and source (null where none is public)",
} as const;

function platformFolders(): string[] {
  return readdirSync(join(ROOT, 'platforms')).filter((name) => statSync(join(ROOT, 'platforms', name)).isDirectory());
}

describe('architecture', () => {
  test.each(platformFolders())('platforms/%s/ has the shared skeleton: every role, and no file outside the roles', (folder) => {
    const names = readdirSync(join(ROOT, 'platforms', folder)).filter((n) => n.endsWith('.ts'));
    expect(Object.keys(PLATFORM_ROLES).filter((role) => !names.includes(role))).toEqual([]);
    expect(names.filter((n) => !(n in PLATFORM_ROLES) && !(n in OPTIONAL_PLATFORM_ROLES))).toEqual([]);
  });

  test('the guide to adding a platform names every file of the skeleton, the optional ones too', () => {
    const guide = readFileSync(join(ROOT, 'docs', 'guides', 'add-a-model-or-platform.md'), 'utf8');
    const roles = [...Object.keys(PLATFORM_ROLES), ...Object.keys(OPTIONAL_PLATFORM_ROLES)];
    expect(roles.filter((role) => !guide.includes(`| \`${role}\` |`))).toEqual([]);
  });

  test('the graph is real: the registry imports every platform folder', () => {
    const registry = graph.get(join(ROOT, 'platforms', 'index.ts'))!.map((p) => relative(ROOT, p));
    expect(registry).toEqual(expect.arrayContaining(['platforms/t/index.ts', 'platforms/b/index.ts', 'platforms/v/index.ts']));
  });

  test('every import goes down the house: a folder imports only from the floors below it, api/ and worker/ never from each other', () => {
    const folderOf = (f: string) => relative(ROOT, f).split('/')[0]!;
    const upward = files.flatMap((f) => {
      const mine = folderOf(f);
      const may = LAYERS[mine];
      if (!may) return [];
      return (graph.get(f) ?? [])
        .filter((dep) => folderOf(dep) !== mine && !may.includes(folderOf(dep)))
        .map((dep) => `${relative(ROOT, f)} → ${relative(ROOT, dep)}`);
    });
    expect(upward).toEqual([]);
    // The table itself: the two doors apart, and the task's room below both.
    expect(LAYERS.api).not.toContain('worker');
    expect(LAYERS.worker).not.toContain('api');
    expect(LAYERS.tasks!.some((f) => ['api', 'worker', 'activities', 'workflows'].includes(f))).toBe(false);
  });

  test('every folder of the gateway has its floor in the table', () => {
    const folders = readdirSync(ROOT).filter(
      (n) => !n.startsWith('.') && statSync(join(ROOT, n)).isDirectory() && tsFiles(join(ROOT, n)).length > 0,
    );
    const outside = ['sim', 'console', 'scripts', 'test', 'bench', 'node_modules', 'dist', 'data', 'deploy', 'docs', 'test-results'];
    expect(folders.filter((f) => !outside.includes(f) && !(f in LAYERS))).toEqual([]);
  });

  test('the production image builds every folder of the gateway: the Dockerfile copies it and the build compiles it', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    const folders = Object.keys(LAYERS);
    expect(folders.filter((f) => !new RegExp(`^COPY ${f} ${f}$`, 'm').test(dockerfile))).toEqual([]);
    expect(folders.filter((f) => !build.include.includes(f))).toEqual([]);
  });

  test('no import cycles', () => {
    expect(findCycles()).toEqual([]);
  });

  test('nothing under console/ imports the gateway: the browser reaches it through the admin API only', () => {
    const leaks = files
      .filter((f) => relative(ROOT, f).startsWith('console/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((dep) => !relative(ROOT, dep).startsWith('console/'))
          .map((dep) => `${relative(ROOT, f)} → ${relative(ROOT, dep)}`),
      );
    expect(leaks).toEqual([]);
  });

  test('nothing under sim/ imports the gateway', () => {
    const leaks = files
      .filter((f) => relative(ROOT, f).startsWith('sim/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((dep) => !relative(ROOT, dep).startsWith('sim/'))
          .map((dep) => `${relative(ROOT, f)} → ${relative(ROOT, dep)}`),
      );
    expect(leaks).toEqual([]);
  });
});
