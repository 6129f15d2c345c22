/**
 * Structural check of docker-compose.yml: what `docker-compose config` cannot know about this project. Run by
 * scripts/check-compose.sh (always, also where docker-compose is missing) and by test/unit/scripts/check-compose.test.ts.
 *
 *   node --import tsx scripts/check-compose.ts [file]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import type { z } from 'zod';
import { apiConfigSchema } from '../api/api-config';
import { ALL_SEARCH_ATTRIBUTES } from '../core/search-attributes';
import { platformsCallbackEnv, platformsWorkerEnv } from '../platforms';
import { simConfigSchema } from '../sim/sim-config';
import { workerConfigSchema } from '../worker/worker-config';

/** Jobs that run once and exit; everything else runs for good and needs a healthcheck. */
const ONE_SHOT = ['temporal-admin-tools', 'temporal-create-namespace', 'ledger-create-database'];
const REQUIRED = ['postgresql', ...ONE_SHOT, 'temporal', 'temporal-ui', 'api', 'worker', 'sim'];
/** Run with `--scale`: a fixed container name or host port would make the second replica fail. */
const SCALABLE = ['api', 'worker'];
/** The gateway's own services: every variable each is given must be one its config schema knows. */
const SCHEMAS: Record<string, z.ZodObject> = { api: apiConfigSchema, worker: workerConfigSchema, sim: simConfigSchema };
/** Upstream endpoints and credentials: the workers' alone (the callback receivers' settings are the API's too). */
const WORKER_ONLY = Object.keys(platformsWorkerEnv.shape).filter((k) => !(k in platformsCallbackEnv.shape));

interface Service {
  image?: string;
  restart?: string;
  healthcheck?: { test?: unknown };
  container_name?: string;
  ports?: (string | { published?: string | number })[];
  profiles?: string[];
  environment?: Record<string, unknown> | string[];
  depends_on?: Record<string, unknown> | string[];
}

function envOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0]!, e.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v ?? '')]));
}

/** A published port is fine for a scaled service only if it is a range (one host port per replica) or absent. */
function fixedHostPort(port: string | { published?: string | number }): boolean {
  const published = typeof port === 'string' ? (port.split(':').length > 1 ? port.split(':').slice(-2)[0] : undefined) : port.published;
  return published !== undefined && !String(published).includes('-');
}

export function checkCompose(doc: unknown): string[] {
  const problems: string[] = [];
  const services = (doc as { services?: Record<string, Service> })?.services;
  if (!services || typeof services !== 'object') return ['no services'];

  for (const name of REQUIRED) if (!services[name]) problems.push(`${name}: service missing`);

  for (const [name, s] of Object.entries(services)) {
    if (!s.restart) problems.push(`${name}: no restart policy`);
    if (!ONE_SHOT.includes(name) && !s.healthcheck?.test) problems.push(`${name}: no healthcheck`);
    const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
    for (const d of deps) if (!services[d]) problems.push(`${name}: depends on unknown service ${d}`);
  }

  if (!JSON.stringify(services.postgresql?.healthcheck?.test ?? '').includes('pg_isready')) {
    problems.push('postgresql: healthcheck must use pg_isready');
  }

  for (const name of SCALABLE) {
    const s = services[name];
    if (!s) continue;
    if (s.container_name) problems.push(`${name}: container_name prevents --scale`);
    for (const p of s.ports ?? []) if (fixedHostPort(p)) problems.push(`${name}: fixed host port ${JSON.stringify(p)} prevents --scale`);
  }

  if (!services.sim?.profiles?.includes('sim')) problems.push('sim: must be behind the opt-in profile "sim"');

  const registered = (envOf(services['temporal-create-namespace'] ?? {}).SEARCH_ATTRIBUTES ?? '').split(/\s+/).filter(Boolean).sort();
  const expected = ALL_SEARCH_ATTRIBUTES.map((k) => k.name).sort();
  if (JSON.stringify(registered) !== JSON.stringify(expected)) {
    problems.push(
      `temporal-create-namespace: SEARCH_ATTRIBUTES ${registered.join(' ')} differ from core/search-attributes.ts: ${expected.join(' ')}`,
    );
  }

  // The ledger: the API and the workers read and write the same database.
  for (const name of ['api', 'worker']) {
    if (!envOf(services[name] ?? {}).DATABASE_URL) problems.push(`${name}: no DATABASE_URL (the ledger's database)`);
  }

  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const known = new Set(Object.keys(schema.shape));
    for (const key of Object.keys(envOf(services[name] ?? {}))) {
      if (!known.has(key)) problems.push(`${name}: ${key} is not one of its configuration variables`);
      else if (name !== 'worker' && WORKER_ONLY.includes(key))
        problems.push(`${name}: ${key} is a platform secret or endpoint: only workers get it`);
    }
  }
  return problems;
}

/** Parses a compose file as Compose would with an empty environment: `${VAR:-default}` becomes its default. */
export function parseCompose(file: string): unknown {
  const text = readFileSync(file, 'utf8').replace(/\$\{\w+:?-([^}]*)\}/g, '$1');
  // `merge`: the file shares the gateway's settings through YAML merge keys (<<: *gateway).
  return parse(text, { merge: true });
}

if (require.main === module) {
  const file = resolve(process.argv[2] ?? resolve(__dirname, '..', 'docker-compose.yml'));
  const problems = checkCompose(parseCompose(file));
  if (problems.length > 0) {
    console.error(`${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`${file}: structure OK (services, healthchecks, restart policies, scaling, sim profile, search attributes, variables)`);
}
