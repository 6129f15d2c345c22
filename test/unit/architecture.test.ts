/**
 * The layout's promises, checked on the source: every folder imports only from the floors below it
 * (scripts/layers.json, which ESLint enforces too: nothing imports upward, api/ and worker/ never import each
 * other), no import cycles between the gateway's modules (type-only imports included: a cycle of types is still
 * two files that cannot be understood apart), and the simulator independent of the gateway.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
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
  'operations',
  'webhooks',
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
 * Every platform has the same skeleton, one role per file name in each of its folders (platforms/<x>/, sim/<x>/),
 * so a new platform starts as a copy of a folder whose files are named like the others. The list is data
 * (scripts/platform-skeleton.json), read here and by the guide to adding a platform.
 */
interface FolderSkeleton {
  required: Record<string, string>;
  optional: Record<string, string>;
}
interface PlatformSkeleton {
  folders: Record<string, FolderSkeleton>;
  tests: Record<string, string>;
  registries: Record<string, string>;
}
const SKELETON = JSON.parse(readFileSync(join(ROOT, 'scripts', 'platform-skeleton.json'), 'utf8')) as PlatformSkeleton;

/** The platforms' folder names (their ids in lower case): the folders under platforms/. */
function platformFolders(): string[] {
  return readdirSync(join(ROOT, 'platforms')).filter((name) => statSync(join(ROOT, 'platforms', name)).isDirectory());
}

/** Each platform with each of its folders' skeletons, for test.each. */
const PLATFORM_FOLDERS: [string, string, FolderSkeleton][] = platformFolders().flatMap((x) =>
  Object.entries(SKELETON.folders).map(([pattern, skeleton]): [string, string, FolderSkeleton] => [x, pattern.replace('<x>', x), skeleton]),
);

/** The files of a skeleton folder's roles present in `dir`, and those outside its roles. */
function againstSkeleton(dir: string, skeleton: FolderSkeleton): { missing: string[]; outside: string[] } {
  const names = existsSync(join(ROOT, dir)) ? readdirSync(join(ROOT, dir)).filter((n) => /\.tsx?$/.test(n)) : [];
  return {
    missing: Object.keys(skeleton.required).filter((role) => !names.includes(role)),
    outside: names.filter((n) => !(n in skeleton.required) && !(n in skeleton.optional)),
  };
}

/**
 * Each platform's distinctive wire names: its API's actions, fields, headers and paths that no other platform and
 * not the gateway's own API uses (names the gateway's API shares with a platform, e.g. V's `service_tier`, are the
 * gateway's too and not listed). In the code of the gateway, the simulator, the scripts and the benches they appear
 * only inside the platform's own folders (platforms/<x>/, sim/<x>/): anything else reaches the platform through its
 * folder's exports. Tests are left out on purpose: a test is a witness of the wire (it asserts what the simulated
 * platform received or sends a platform's callback as the platform would), so the names it asserts are written
 * out where it asserts them. Code means identifiers, strings, templates and regular expressions; comments may name
 * a platform's fields to explain.
 */
export const WIRE_NAMES: Readonly<Record<string, readonly RegExp[]>> = {
  t: [
    /SubAppId/,
    /SessionId/,
    /SessionContext/,
    /CreateAigc(Video|Image)Task/,
    /DescribeTaskDetail/,
    /DescribeTasks/,
    /PullEvents/,
    /ConfirmEvents/,
    /(Modify|Describe)EventConfig/,
    /Aigc(Video|Image)Task/,
    /ErrCodeExt/,
    /ModelName/,
    /ModelVersion/,
    /TC3-HMAC-SHA256/,
    /x-tc-/i,
  ],
  b: [
    // A model's TaskInput key, written out (`modelK21TaskInput`) or built (`model${code}TaskInput`).
    /model[A-Z0-9]+TaskInput|^\}TaskInput`/,
    /bce-auth-v1/,
    /x-bce-/i,
    /\/v2\/aigc\//,
    /VIDEO_GENERATE_COMPLETE/,
    /videoGenerateTaskInfo/,
    /videoGenerateCompleteEvent/,
    /mediaBasicInfos/,
  ],
  v: [/\/contents\/generations/, /callback_url/],
};

/** The code of a file without its comments: identifiers, string and template literals, regular expressions, JSX text. */
function codeTokens(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const tokens: { line: number; text: string }[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isIdentifier(node) ||
      ts.isStringLiteralLike(node) ||
      ts.isTemplateLiteralToken(node) ||
      ts.isRegularExpressionLiteral(node) ||
      ts.isJsxText(node)
    )
      tokens.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.getText(source) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return tokens;
}

/** Whether `file` (relative to the root) lies in one of platform `x`'s own folders. */
function ownedBy(file: string, x: string): boolean {
  return file.startsWith(`platforms/${x}/`) || file.startsWith(`sim/${x}/`);
}

/** Every use of a platform's wire names in code outside its folders: `file:line name`. */
function wireNamesOutside(files: readonly string[], root = ROOT): string[] {
  return files.flatMap((file) =>
    codeTokens(join(root, file)).flatMap(({ line, text }) =>
      Object.entries(WIRE_NAMES).flatMap(([x, names]) =>
        ownedBy(file, x) ? [] : names.filter((n) => n.test(text)).map((n) => `${file}:${line} ${x.toUpperCase()} ${n.source}`),
      ),
    ),
  );
}

describe('architecture', () => {
  test.each(PLATFORM_FOLDERS)(
    'platform %s: %s/ has the skeleton: every required role, and no file outside the roles',
    (_x, dir, skeleton) => {
      expect(againstSkeleton(dir, skeleton)).toEqual({ missing: [], outside: [] });
    },
  );

  test('the skeleton check fails on a folder that lacks a role or has a file outside them', () => {
    const skeleton = { required: { 'index.ts': '', 'absent.ts': '' }, optional: { 'errors.ts': '' } };
    const { missing, outside } = againstSkeleton('sim/t', skeleton);
    expect(missing).toEqual(['absent.ts']);
    expect(outside).toContain('operations.ts');
    expect(outside).not.toContain('errors.ts');
  });

  test.each(platformFolders())("platform %s has every file of its tests' skeleton", (x) => {
    const paths = Object.keys(SKELETON.tests).map((pattern) => pattern.replace('<x>', x));
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  test.each(Object.keys(SKELETON.registries))('the registry %s names every platform', (registry) => {
    const text = readFileSync(join(ROOT, registry), 'utf8');
    const names = (x: string) =>
      new RegExp(`\\./${x}'|'${x.toUpperCase()}'|\\b${x.toUpperCase()}:|PLATFORM_${x.toUpperCase()}_`).test(text);
    expect(platformFolders().filter((x) => !names(x))).toEqual([]);
  });

  test('the guide to adding a platform names every file of the skeleton: the Markdown page that points at the list', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((f) => join('docs', f))]
      .filter((f) => f.endsWith('.md'))
      .map((f) => ({ f, text: readFileSync(join(ROOT, f), 'utf8') }))
      .filter(({ text }) => text.includes('scripts/platform-skeleton.json'));
    expect(pages.map(({ f }) => f)).not.toEqual([]);
    const files = [
      ...Object.values(SKELETON.folders).flatMap((s) => [...Object.keys(s.required), ...Object.keys(s.optional)]),
      // The guide writes a new platform's id as `<x>`, as the skeleton does.
      ...Object.keys(SKELETON.tests),
      ...Object.keys(SKELETON.registries),
    ];
    for (const { f, text } of pages)
      expect({ page: f, unnamed: [...new Set(files)].filter((n) => !text.includes(`\`${n}\``)) }).toEqual({ page: f, unnamed: [] });
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
    // clients/: packages published apart (the AI SDK provider), which reach the gateway over HTTP only (below).
    const outside = [
      'sim',
      'console',
      'clients',
      'scripts',
      'test',
      'bench',
      'node_modules',
      'dist',
      'data',
      'deploy',
      'docs',
      'test-results',
    ];
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

  test('nothing a client package publishes (clients/<x>/src) imports anything outside it: it reaches the gateway over HTTP only', () => {
    const leaks = readdirSync(join(ROOT, 'clients')).flatMap((client) => {
      const src = join(ROOT, 'clients', client, 'src');
      // An ES module package: each import names the compiled `.js` of a source file.
      return tsFiles(src).flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)]
          .map((m) => resolve(dirname(f), m[1]!))
          .filter((dep) => relative(src, dep).startsWith('..'))
          .map((dep) => `${relative(ROOT, f)} → ${relative(ROOT, dep)}`),
      );
    });
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
  test("a platform's wire names appear in code only in its own folders and tests", () => {
    const sources = [...SOURCE_DIRS, 'bench']
      .flatMap((d) => readdirSync(join(ROOT, d), { recursive: true, encoding: 'utf8' }).map((f) => join(d, f)))
      .filter((f) => /\.tsx?$/.test(f));
    expect(sources.length).toBeGreaterThan(250);
    expect(wireNamesOutside(sources)).toEqual([]);
  });

  test('the wire-name check sees code, not comments, and knows whose folders are whose', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wire-names-'));
    mkdirSync(join(dir, 'api'));
    writeFileSync(join(dir, 'api', 'x.ts'), "// DescribeTasks, in a comment\nexport const a = { SubAppId: 1, path: `/v2/aigc/${'x'}` };\n");
    expect(wireNamesOutside(['api/x.ts'], dir)).toEqual(['api/x.ts:2 T SubAppId', 'api/x.ts:2 B \\/v2\\/aigc\\/']);
    expect(ownedBy('sim/t/index.ts', 't')).toBe(true);
    expect(ownedBy('platforms/b/adapter.ts', 'b')).toBe(true);
    expect(ownedBy('platforms/b/adapter.ts', 't')).toBe(false);
    expect(ownedBy('platforms/bx.ts', 'b')).toBe(false);
    expect(ownedBy('platforms/default-routes.ts', 't')).toBe(false);
  });

  test.each(Object.keys(WIRE_NAMES))("every wire name listed for %s is one: its own folders' code uses it", (x) => {
    const own = [`platforms/${x}`, `sim/${x}`].flatMap((d) => tsFiles(join(ROOT, d)));
    const tokens = own.flatMap((f) => codeTokens(f).map((t) => t.text));
    expect(WIRE_NAMES[x]!.filter((n) => !tokens.some((t) => n.test(t))).map((n) => n.source)).toEqual([]);
  });
});
