/**
 * The repository stands on its own: no tracked text file (code, docs, tests, configuration; the recorded histories
 * and the lock file aside) points at what a person who clones it does not have — the project's notes outside the
 * repository, its issue tracker's numbers, or the contract's section numbers. What the code relies on is written in
 * the repository instead (docs/api.md, docs/platforms/, docs/architecture.md), with the public pages it comes from.
 */
import { trackedTextFiles } from '../../support/tracked-files';

/** This file holds the controls below, which must match: it is the one file left out of the scan. */
const SELF = 'test/unit/docs/self-contained.test.ts';

const RULES = {
  /** A folder beside the repository, or the notes kept there. */
  'a path outside the repository':
    /(?:\.\.\/|\/work\/)shared\b|\bshared\/(?:spec|platforms|upstreams|design|temporal-notes)|\b(?:upstreams|b-baidu-vod|design|temporal-notes|generation-service)\.md\b/,
  /** "issue 20 §5", "Issue 19 A.2", "issues 19–22": the tracker is not in the repository. */
  'an issue number': /\bissues?\s+#?\d/i,
  /** "spec 2.4", "spec §4 rule 1", "spec 2.2's size table": the contract is restated in docs/api.md, by name. */
  "a section number of the contract's own document": /\bspec\s+(?:§\s*\d|\d+\.\d)/,
} as const;

type Finding = { path: string; line: number; rule: string; text: string };

function findings(files: { path: string; text: string }[]): Finding[] {
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) =>
      Object.entries(RULES)
        .filter(([, pattern]) => pattern.test(line))
        .map(([rule]) => ({ path, line: i + 1, rule, text: line.trim().slice(0, 160) })),
    ),
  );
}

test('no tracked text file names a path outside the repository, an issue number or a section number of the contract', () => {
  const files = trackedTextFiles().filter((f) => f.path !== SELF);
  expect(files.length).toBeGreaterThan(300);
  expect(findings(files)).toEqual([]);
});

test('controls: each rule catches what it is for, and passes prose that only looks like it', () => {
  const caught = [
    ['The contract is `../shared/spec/generation-service.md`.', 'a path outside the repository'],
    ['(shared/platforms/b-baidu-vod.md §7.3)', 'a path outside the repository'],
    ['from upstreams.md, "Corrections, 2026-11-25"', 'a path outside the repository'],
    ['the floors of the house (design.md)', 'a path outside the repository'],
    ['/** Usage from the ledger (issue 20 §7). */', 'an issue number'],
    ['Issue 19 A.2 asks, for a refused repeat, …', 'an issue number'],
    ['main at 6a74fe1 with issues 19–22 merged', 'an issue number'],
    ['/** A task record (spec 2.4). */', "a section number of the contract's own document"],
    ["(spec 2.2's size table)", "a section number of the contract's own document"],
    ['(spec §4 rule 1)', "a section number of the contract's own document"],
  ] as const;
  for (const [text, rule] of caught) expect(findings([{ path: 'control.ts', text }]).map((f) => f.rule)).toEqual([rule]);

  const prose = [
    'const { param } = describeIssue(parsed.error.issues[0]!, body);',
    'An issued result link lives 7 days.',
    'docs/platforms/b.md#callbacks and docs/architecture.md',
    'the contract (docs/api.md "Task records")',
    'a shared helper in test/support/',
  ];
  expect(findings(prose.map((text) => ({ path: 'control.ts', text })))).toEqual([]);
});
