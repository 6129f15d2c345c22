/**
 * Every file a comment or a document names exists: a reader who follows `platforms/b/models.ts` or
 * `docs/platforms/b.md` from a comment, the README or a guide finds it. A name with a folder must resolve from the
 * repository's root, from the naming file's folder or its top-level folder, or inside an installed package
 * (`openai/resources/videos.d.ts`); a bare file name must be some tracked file's. What the build, a run or a tool
 * makes (dist/, data/, .tools/) is named by where it will be. Placeholders (`platforms/<x>/models.ts`,
 * `platforms/*‌/unconfirmed.ts`) and absolute paths on a host (`/etc/mg/t.json`) are not file names.
 */
import { existsSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';
import { REPO, trackedFiles, trackedTextFiles } from '../../support/tracked-files';

/** A file name with a folder or without, ending in an extension the repository's own files have. */
const FILE_NAME =
  /(?<![\w@./:<>*{}|$-])(?:\.{1,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|tsx|js|mjs|cjs|json|md|ya?ml|sh|sql)(?![\w/*<>{}|-])/g;
/** Where the build, a run or a tool writes: named before it exists. */
const MADE_LATER = /^(?:dist|data|\.tools|node_modules|test-results|bench\/results|coverage)\//;
/** A product's name that ends like a file's (Chart.js, Node.js). */
const PRODUCT = /^[A-Z][A-Za-z]*\.js$/;
/** Files of other projects, named as their own sources name them (no copy of them is installed here). */
const OTHER_PROJECTS = new Set([
  'config/development-postgres12.yaml', // the Temporal server's Go module (scripts/temporal-server.ts builds it)
  'config/dynamicconfig/development-sql.yaml', // the same module
  'lib/_http_server.js', // Node.js's own source
]);

/** What a person reads in a file: a document whole; a program's comments; a configuration file's `#` comments. */
export function proseOf(path: string, text: string): string | undefined {
  if (path.endsWith('.md')) return text;
  if (/\.(?:ts|tsx|js|mjs|cjs)$/.test(path)) return commentsOf(text, path.endsWith('.tsx'));
  if (/(?:\.ya?ml|\.sh|Dockerfile|\.env\.example|^\.ci\/run|ignore)$/.test(path))
    return text
      .split('\n')
      .map((line) => (line.includes('#') ? line.slice(line.indexOf('#')) : ''))
      .join('\n');
  return undefined;
}

/** Every comment of a program, found by TypeScript's own parser (so no string or regular expression is taken for one). */
function commentsOf(text: string, tsx: boolean): string {
  const file = ts.createSourceFile(tsx ? 'f.tsx' : 'f.ts', text, ts.ScriptTarget.Latest, false, tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const comments: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) if (!seen.has(r.pos) && seen.add(r.pos)) comments.push(text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, node.pos));
    take(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(file);
  take(ts.getLeadingCommentRanges(text, file.endOfFileToken.pos));
  return comments.join('\n');
}

function resolves(name: string, from: string, tracked: Set<string>): boolean {
  if (MADE_LATER.test(name) || PRODUCT.test(name) || OTHER_PROJECTS.has(name)) return true;
  if (!name.includes('/') && !name.startsWith('.')) return tracked.has(name);
  const candidates = [name, join(dirname(from), name), join(from.split('/')[0]!, name), join('node_modules', name)];
  return candidates.some((c) => existsSync(join(REPO, c)));
}

/** The file names in `files`' prose that resolve to nothing, as `path: name`. */
function missing(files: { path: string; text: string }[], basenames: Set<string>): string[] {
  return files.flatMap(({ path, text }) => {
    const prose = proseOf(path, text) ?? '';
    return [...prose.matchAll(FILE_NAME)].filter((m) => !resolves(m[0], path, basenames)).map((m) => `${path}: ${m[0]}`);
  });
}

const basenames = new Set(trackedFiles().map((p) => posix.basename(p)));

test('every file named in a comment or a document exists', () => {
  expect(missing(trackedTextFiles(), basenames)).toEqual([]);
});

test('controls: a name that resolves to nothing is caught, wherever it is written; prose and placeholders are not', () => {
  const named = (path: string, text: string) => missing([{ path, text }], basenames);
  // Names that were wrong in this repository once: a file that was never there, a page outside it.
  expect(named('tasks/task-service.ts', '/** Key ids are [A-Za-z0-9_.-] (api/auth.ts), so no quoting issue. */')).toEqual([
    'tasks/task-service.ts: api/auth.ts',
  ]);
  expect(named('eslint.config.js', "// The house's floors (floors-notes.md)\nconst floors = 1;")).toEqual([
    'eslint.config.js: floors-notes.md',
  ]);
  expect(named('docs/guides/run.md', 'See [the notes](../notes/platforms.md) and `docs/runbook.md` §6.')).toEqual([
    'docs/guides/run.md: ../notes/platforms.md',
    'docs/guides/run.md: docs/runbook.md',
  ]);
  expect(named('docker-compose.yml', 'services: # see deploy/temporal/missing.sh\n')).toEqual([
    'docker-compose.yml: deploy/temporal/missing.sh',
  ]);
  // Names that resolve: from the root, from the file's folder, inside a package, made later, placeholders, code.
  const fine = [
    ['platforms/b/adapter.ts', '/** The body is built in request-body.ts (platforms/b/models.ts, ./replies.ts). */'],
    ['api/openai-videos/video-object.ts', "/** OpenAI's `video` (openai/resources/videos.d.ts). */"],
    ['README.md', 'The bundle is dist/workflow-bundle.js; keys in data/dev-api-key; see platforms/<x>/models.ts.'],
    ['test/unit/sim/v/index.test.ts', 'expect(r.json.error.code).toBe(code); // code, not a comment naming a file'],
    ['README.md', 'Charts with uPlot rather than Chart.js; runs on Node.js.'],
  ] as const;
  for (const [path, text] of fine) expect(named(path, text)).toEqual([]);
});
