/**
 * Every configuration variable is documented exactly once: `.env.example` and the table of
 * docs/reference/configuration.md list exactly the keys of the processes' config schemas (API, worker, simulator,
 * embedded dev server), with the schemas' defaults.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { apiConfigSchema } from '../../api/api-config';
import { embeddedConfigSchema } from '../../scripts/embedded-config';
import { simConfigSchema } from '../../sim/sim-config';
import { workerConfigSchema } from '../../worker/worker-config';

const ROOT = resolve(__dirname, '..', '..');
const schemas = [apiConfigSchema, workerConfigSchema, simConfigSchema, embeddedConfigSchema];
const keys = [...new Set(schemas.flatMap((s) => Object.keys(s.shape)))].sort();
/** A default as a person writes it in a file: a set of platforms as `T,B,V`. */
const show = (v: unknown) => (v instanceof Set ? [...v].join(',') : v === undefined ? '' : String(v));
const defaults: Record<string, string> = Object.assign(
  {},
  ...schemas.map((s) => Object.fromEntries(Object.entries(s.parse({}) as object).map(([k, v]) => [k, show(v)]))),
);

function envExample(): Map<string, string> {
  const lines = readFileSync(resolve(ROOT, '.env.example'), 'utf8').split('\n');
  return new Map(lines.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

function referenceTable(): Map<string, string> {
  const page = readFileSync(resolve(ROOT, 'docs', 'reference', 'configuration.md'), 'utf8');
  const section = page.slice(page.indexOf('## Environment variables'));
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|\s*([^|]*?)\s*\|/gm)];
  const table = new Map(rows.map((m) => [m[1]!, m[2]!.replace(/^`|`$/g, '')]));
  if (table.size !== rows.length) throw new Error('docs/reference/configuration.md: a variable is listed twice');
  return table;
}

describe('configuration docs', () => {
  it('.env.example lists exactly the schema keys, each once, with their defaults', () => {
    const env = envExample();
    const lines = readFileSync(resolve(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l));
    expect(lines).toHaveLength(env.size);
    expect([...env.keys()].sort()).toEqual(keys);
    for (const key of keys) expect([key, env.get(key)]).toEqual([key, defaults[key] ?? '']);
  });

  it('the configuration reference lists exactly the schema keys, each once, with their defaults', () => {
    const table = referenceTable();
    expect([...table.keys()].sort()).toEqual(keys);
    for (const key of keys) expect([key, table.get(key)]).toEqual([key, defaults[key] ?? '']);
  });
});
