/**
 * The versioning policy from 1.0 on (docs/explanations/versioning.md): every patch a workflow takes is listed in
 * CHANGELOG.md and in the patch table of docs/explanations/versioning.md, and the package's version is the
 * CHANGELOG's newest entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsFiles } from '../support/source-files';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every patch id the code under `dir` takes: patched(…) and deprecatePatch(…), named inline or by a constant. */
function patchIds(dir: string): string[] {
  const ids = new Set<string>();
  for (const file of tsFiles(join(ROOT, dir))) {
    const source = readFileSync(file, 'utf8');
    const constants = new Map([...source.matchAll(/const\s+([A-Z0-9_]+)\s*=\s*'([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
    for (const m of source.matchAll(/(?:patched|deprecatePatch)\(\s*(?:'([^']+)'|([A-Z0-9_]+))\s*\)/g)) {
      const id = m[1] ?? constants.get(m[2]!);
      if (id === undefined) throw new Error(`${file}: patch ${m[2]} is not a string constant of the file`);
      ids.add(id);
    }
  }
  return [...ids].sort();
}

/** The patch ids not listed in CHANGELOG.md or in the patch table of docs/explanations/versioning.md. */
function unlisted(ids: string[]): string[] {
  const changelog = read('CHANGELOG.md');
  const versioning = read('docs/explanations/versioning.md');
  const table = versioning.slice(
    versioning.indexOf('| patch | since | what new runs do |'),
    versioning.indexOf('**Deploying workers: the rolling procedure.**'),
  );
  return ids.filter((id) => !changelog.includes(`\`${id}\``) || !table.includes(`\`${id}\``));
}

test('every patch the workflows take is listed in CHANGELOG.md and in the patch table of docs/explanations/versioning.md', () => {
  expect(unlisted(patchIds('workflows'))).toEqual([]);
  // Control: a next build's patches (test/fixtures/builds/next-build.ts), listed nowhere, are caught.
  expect(unlisted(patchIds('test/fixtures/builds'))).toEqual(['rolling-deploy-fixture-step-after', 'rolling-deploy-fixture-step-before']);
});

test('the package version is the newest CHANGELOG entry', () => {
  const version = (JSON.parse(read('package.json')) as { version: string }).version;
  const newest = /^## (\d+\.\d+\.\d+)/m.exec(read('CHANGELOG.md'))?.[1];
  expect(newest).toBe(version);
});
