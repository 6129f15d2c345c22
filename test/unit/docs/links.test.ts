/**
 * Every relative link of every Markdown file leads somewhere: its file (or folder) exists, and its `#anchor` is a
 * heading of the page it names, slugged the way GitHub slugs headings (github-slugger), or an `id` the page sets.
 * The Markdown is parsed by markdown-it, so a link-like text in a code span or block is not taken for a link.
 * Nothing is fetched: links with a scheme (https:, mailto:) are left to their sites.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { REPO, trackedFiles } from '../../support/tracked-files';

type Token = MarkdownIt.Token;

const markdown = new MarkdownIt({ html: true });

/** Every token of a page, inline children included. */
function tokensOf(text: string): Token[] {
  const flat = (tokens: Token[]): Token[] => tokens.flatMap((t) => [t, ...flat(t.children ?? [])]);
  return flat(markdown.parse(text, {}));
}

/** The anchors a page has: its headings as GitHub slugs them (duplicates numbered), and the ids its HTML sets. */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(text, {});
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type !== 'heading_open') return;
    const words = (tokens[i + 1]?.children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content);
    anchors.add(slugger.slug(words.join('')));
  });
  for (const t of tokensOf(text).filter((t) => t.type === 'html_inline' || t.type === 'html_block'))
    for (const m of t.content.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** The relative link targets of a page: link hrefs and image sources without a scheme. */
function targetsOf(text: string): string[] {
  return tokensOf(text)
    .map((t) => (t.type === 'link_open' ? t.attrGet('href') : t.type === 'image' ? t.attrGet('src') : null))
    .map((href) => (href === null ? null : String(href)))
    .filter((href): href is string => href !== null && !/^[a-z][a-z0-9+.-]*:/i.test(href));
}

/** The broken links of the page at `path` (repository-relative), as `path: target (why)`. */
export function brokenLinks(path: string, text: string, read: (file: string) => string | undefined): string[] {
  return targetsOf(text).flatMap((target) => {
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = file === '' ? path : normalize(join(dirname(path), decodeURIComponent(file)));
    const page = resolved === path ? text : read(resolved);
    if (page === undefined) return [`${path}: ${target} (no such file)`];
    if (!anchor || !resolved.endsWith('.md')) return [];
    return anchorsOf(page).has(anchor) ? [] : [`${path}: ${target} (no such heading)`];
  });
}

const readRepoFile = (file: string): string | undefined => {
  const full = join(REPO, file);
  if (!existsSync(full)) return undefined;
  return file.endsWith('.md') ? readFileSync(full, 'utf8') : '';
};

test('every relative link and anchor of every Markdown file resolves', () => {
  const pages = trackedFiles().filter((p) => p.endsWith('.md'));
  expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/api.md']));
  const links = pages.flatMap((p) => targetsOf(readFileSync(join(REPO, p), 'utf8')));
  expect(links.length).toBeGreaterThan(100);
  expect(pages.flatMap((p) => brokenLinks(p, readFileSync(join(REPO, p), 'utf8'), readRepoFile))).toEqual([]);
});

test('controls: a missing file, a missing heading and a link in code are told apart from good links', () => {
  const other =
    '# Versioning\n\n## 6. Changing the workflow safely: versions, the replay gate\n\n## Notes\n\n## Notes\n\n<a id="patch-table"></a>\n';
  const read = (file: string) => (file === 'docs/other.md' ? other : file === 'docs/image.png' ? '' : undefined);
  const page = [
    '# Page',
    '## `npm start` as root',
    '[fine](other.md#6-changing-the-workflow-safely-versions-the-replay-gate) [fine](other.md#notes-1) [fine](other.md#patch-table)',
    '[fine](#npm-start-as-root) ![fine](image.png) [elsewhere](https://example.com/x.md#y) `[code](nowhere.md)`',
    '```',
    '[code block](nowhere.md)',
    '```',
    '[gone](missing.md) [wrong](other.md#6-changing-the-workflow) [wrong](#npm-start) [twice](other.md#notes-2)',
  ].join('\n');
  expect(brokenLinks('docs/page.md', page, read)).toEqual([
    'docs/page.md: missing.md (no such file)',
    'docs/page.md: other.md#6-changing-the-workflow (no such heading)',
    'docs/page.md: #npm-start (no such heading)',
    'docs/page.md: other.md#notes-2 (no such heading)',
  ]);
});
