/**
 * Every configuration variable is documented exactly once: `.env.example` and the README "Deploying" table list
 * exactly the keys of the config schema, with the schema's defaults.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configSchema } from '../../core/config';

const ROOT = resolve(__dirname, '..', '..');
const keys = Object.keys(configSchema.shape).sort();
const defaults = configSchema.parse({}) as Record<string, unknown>;

function envExample(): Map<string, string> {
  const lines = readFileSync(resolve(ROOT, '.env.example'), 'utf8').split('\n');
  return new Map(lines.filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

function readmeTable(): Map<string, string> {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Environment variables'));
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|\s*([^|]*?)\s*\|/gm)];
  const table = new Map(rows.map((m) => [m[1]!, m[2]!.replace(/^`|`$/g, '')]));
  if (table.size !== rows.length) throw new Error('README: a variable is listed twice');
  return table;
}

describe('configuration docs', () => {
  it('.env.example lists exactly the schema keys, each once, with their defaults', () => {
    const env = envExample();
    const lines = readFileSync(resolve(ROOT, '.env.example'), 'utf8').split('\n').filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l));
    expect(lines).toHaveLength(env.size);
    expect([...env.keys()].sort()).toEqual(keys);
    for (const key of keys) expect([key, env.get(key)]).toEqual([key, defaults[key] === undefined ? '' : String(defaults[key])]);
  });

  it('the README table lists exactly the schema keys, each once, with their defaults', () => {
    const table = readmeTable();
    expect([...table.keys()].sort()).toEqual(keys);
    for (const key of keys) expect([key, table.get(key)]).toEqual([key, defaults[key] === undefined ? '' : String(defaults[key])]);
  });
});
