/**
 * The repository stands on its own: no tracked text file (code, docs, tests, configuration; the recorded histories
 * and the lock file aside) points at what a person who clones it does not have — the project's notes outside the
 * repository, its issue tracker's numbers, or the contract's section numbers. What the code relies on is written in
 * the repository instead (docs/api.md, docs/platforms/, docs/architecture.md), with the public pages it comes from.
 */
import { posix } from 'node:path';
import { trackedFiles, trackedTextFiles } from '../../support/tracked-files';

/** This file holds the controls below, which must match: it is the one file left out of the scan. */
const SELF = 'test/unit/docs/self-contained.test.ts';

/**
 * Files whose own controls name, on purpose, documents that exist nowhere (the checks of links and of named files):
 * only the rule on documents passes them over.
 */
const CHECKERS_OF_NAMES = new Set(['test/unit/docs/links.test.ts', 'test/unit/docs/named-paths.test.ts']);

/** What the repository holds: its top-level entries, and its documents by file name (`*.md`). */
type Repository = { topLevel: ReadonlySet<string>; documents: ReadonlySet<string> };

/** The repository these tracked paths make. */
const repositoryOf = (paths: string[]): Repository => ({
  topLevel: new Set(paths.map((p) => p.split('/')[0]!)),
  documents: new Set(paths.filter((p) => p.endsWith('.md')).map((p) => posix.basename(p))),
});

/** A relative path that starts by climbing: `../x`, `../../core/task` (its steps, and the name after them). */
const RELATIVE_PATH = /(?<![\w./-])((?:\.\.\/)+)([\w.-]*)/g;
/** An absolute path into the machine's work folder, where the checkout and whatever lies beside it live. */
const WORK_FOLDER = /(?<![\w.-])\/work\//;
/** A Markdown document's file name, with its folders or without. */
const DOCUMENT = /(?<![\w./-])(?:\.{1,2}\/)*(?:[\w-]+\/)*([\w.-]+\.md)\b/g;

/** How many folders deep a tracked file lies. */
const depthOf = (path: string) =>
  posix
    .dirname(path)
    .split('/')
    .filter((d) => d !== '.').length;

/**
 * A relative path that climbs above the repository's root from the file's own folder, to something the root does not
 * hold (a comment may speak from another file's folder: `../capacity`, said of workflows/generation/, is ours).
 */
const leavesRepository = (path: string, ups: string, next: string, repo: Repository) =>
  ups.length / 3 > depthOf(path) && !repo.topLevel.has(next);

type Line = { path: string; text: string; repo: Repository };

const RULES: Record<string, (line: Line) => boolean> = {
  /** A folder beside the repository, or one of the machine's: a person who clones it has neither. */
  'a path outside the repository': ({ path, text, repo }) =>
    WORK_FOLDER.test(text) || [...text.matchAll(RELATIVE_PATH)].some((m) => leavesRepository(path, m[1]!, m[2]!, repo)),
  /** A document by a file name the repository has no file of: notes kept somewhere else. */
  'a document the repository does not have': ({ path, text, repo }) =>
    !CHECKERS_OF_NAMES.has(path) && [...text.matchAll(DOCUMENT)].some((m) => !repo.documents.has(m[1]!)),
  /** "issue 20 §5", "Issue 19 A.2", "issues 19–22": the tracker is not in the repository. */
  'an issue number': ({ text }) => /\bissues?\s+#?\d/i.test(text),
  /** "spec 2.4", "spec §4 rule 1", "spec 2.2's size table": the contract is restated in docs/api.md, by name. */
  "a section number of the contract's own document": ({ text }) => /\bspec\s+(?:§\s*\d|\d+\.\d)/.test(text),
};

type Finding = { path: string; line: number; rule: string; text: string };

function findings(files: { path: string; text: string }[], repo: Repository): Finding[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) =>
      Object.entries(RULES)
        .filter(([, breaks]) => breaks({ path, text: line, repo }))
        .map(([rule]) => ({ path, line: i + 1, rule, text: line.trim().slice(0, 160) })),
    ),
  );
}

test('no tracked text file names a path outside the repository, a document it does not have, an issue number or a section number of the contract', () => {
  const files = trackedTextFiles().filter((f) => f.path !== SELF);
  expect(files.length).toBeGreaterThan(300);
  expect(findings(files, repositoryOf(trackedFiles()))).toEqual([]);
});

test('controls: each rule catches what it is for, and passes prose that only looks like it', () => {
  const repo = repositoryOf([
    'README.md',
    'capacity/slots.ts',
    'docs/api.md',
    'docs/architecture.md',
    'docs/platforms/b.md',
    'docs/guides/run.md',
  ]);
  const caught = [
    ['The contract is in `../notes/` beside the checkout.', 'a path outside the repository'],
    ['as /work/notes/ says', 'a path outside the repository'],
    ['from contract-notes.md, "Corrections, 2026-11-25"', 'a document the repository does not have'],
    ['(notes/platforms/vendor-b.md §7.3)', 'a document the repository does not have'],
    ['the floors of the house (house-plan.md)', 'a document the repository does not have'],
    ['/** Usage from the ledger (issue 20 §7). */', 'an issue number'],
    ['Issue 19 A.2 asks, for a refused repeat, …', 'an issue number'],
    ['main at 6a74fe1 with issues 19–22 merged', 'an issue number'],
    ['/** A task record (spec 2.4). */', "a section number of the contract's own document"],
    ["(spec 2.2's size table)", "a section number of the contract's own document"],
    ['(spec §4 rule 1)', "a section number of the contract's own document"],
  ] as const;
  for (const [text, rule] of caught) expect(findings([{ path: 'control.ts', text }], repo).map((f) => f.rule)).toEqual([rule]);

  const prose = [
    'const { param } = describeIssue(parsed.error.issues[0]!, body);',
    'An issued result link lives 7 days.',
    'docs/platforms/b.md#callbacks and docs/architecture.md',
    'the contract (docs/api.md "Task records")',
    'a shared helper in test/support/',
    "import { REPO } from '../../support/tracked-files';",
    'see [run](../guides/run.md) and the README.md',
    '(inside workflows/generation/, `../../../capacity` is the folder capacity/)',
  ];
  expect(
    findings(
      prose.map((text) => ({ path: 'docs/explanations/control.md', text })),
      repo,
    ),
  ).toEqual([]);
});
