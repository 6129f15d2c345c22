/**
 * Configuration building blocks. Each process reads only its own variables (api/api-config.ts,
 * worker/worker-config.ts, scripts/embedded-config.ts; the simulator has its own, sim/sim-config.ts), parsed once
 * with zod into a typed object; bad configuration fails at start with a message naming the variable.
 * `.env.example` and docs/reference/configuration.md list every variable; test/unit/env-docs.test.ts keeps them in step.
 */
import { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const ms = (def: number) => z.coerce.number().int().nonnegative().default(def);
export const positiveMs = (def: number) => z.coerce.number().int().positive().default(def);
export const port = (def: number) => z.coerce.number().int().min(0).max(65535).default(def);
export const bool = (def: boolean) =>
  z
    .enum(['true', 'false'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true');
/** An unset or blank variable is undefined; anything else is trimmed. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
export const optionalUrl = optionalString.pipe(z.url({ protocol: /^https?$/ }).optional());

/** What every gateway process reads. */
export const commonSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** How the API and the worker reach Temporal. */
export const temporalSchema = z.object({
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('mediagate-generations'),
  /** Temporal Cloud or any cluster with API-key auth; implies TLS. */
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_TLS: bool(false),
});

/**
 * Where the platforms reach the gateway, and the key of the per-task callback tokens: both the API (which
 * receives callbacks, api/routes/callbacks.ts) and the worker (which hands callback URLs to the platforms) read
 * them. Without PUBLIC_BASE_URL nothing is pushed to the gateway (V and B), and tasks rely on polling alone.
 */
export const callbackSchema = z.object({
  /** The gateway's public base URL (e.g. https://api.example.com), as platforms and clients reach it. */
  PUBLIC_BASE_URL: optionalUrl,
  /** HMAC key of the per-task callback tokens (≥ 32 characters); required when PUBLIC_BASE_URL is set in production. */
  CALLBACK_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 48`)').optional()),
});

/** Parses `env` with `schema`, or throws a ConfigError naming every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function configError(variable: string, message: string): ConfigError {
  return new ConfigError(`Invalid configuration:\n  ${variable}: ${message}`);
}

/**
 * A comma-separated list of http(s) origins (an operator's allowlist, e.g. RESULTS_ALLOW_PRIVATE_ORIGINS) as a set
 * of `URL.origin`s, with `extra` entries added; a malformed entry fails naming `variable`.
 */
export function parseOriginList(variable: string, value: string | undefined, extra: readonly string[] = []): Set<string> {
  const out = new Set<string>();
  for (const raw of [...(value ?? '').split(','), ...extra].map((s) => s.trim()).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw configError(variable, `${raw} is not an origin such as http://10.0.0.5:9000`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(variable, `${raw}: only http and https origins`);
    out.add(url.origin);
  }
  return out;
}

/**
 * The http origin this machine reaches a listener on: a wildcard listen address (`0.0.0.0`, `::`, none) is reached
 * on loopback, an IPv6 address goes in brackets. For a part that calls another part it started or runs beside.
 */
export function localOrigin(listenHost: string, port: number): string {
  const listen = listenHost.trim();
  const host = listen === '' || listen === '0.0.0.0' || listen === '::' || listen === '[::]' ? '127.0.0.1' : listen;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}
