/**
 * Several accounts per platform (docs/explanations/durability.md#accounts-and-failover): `PLATFORM_<X>_ACCOUNTS_FILE` names
 * a JSON array of accounts. Each entry has an `id` (recorded on every task as `UpstreamAccount`: never a secret),
 * the platform's credentials named like its single-account variables in lower case without their prefix
 * (V: `api_key`, `base_url`), an optional `weight` (default 1: the share of new jobs it gets), optional
 * `models` (the public model ids it serves; absent: all) and an optional `max_concurrent` (how many jobs it may run at
 * once; absent: PLATFORM_<X>_MAX_CONCURRENT, else the platform's documented default, else unlimited until learned).
 *
 * Shared by the platforms: each gives the schema of its credentials (platforms/<x>/config.ts) and maps a parsed
 * entry onto its own settings. A bad file is a start-up error naming the variable, the entry and the field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { configError } from '../core/config';

/** What every account has besides its credentials. */
export interface AccountEntry {
  /** Names the account in logs, metrics and the task's `UpstreamAccount`: letters, digits, `.`, `_`, `-`. */
  id: string;
  /** Its share of new jobs relative to the platform's other accounts. */
  weight: number;
  /** The public model ids it serves; undefined: every model of the platform. */
  models?: readonly string[];
  /** How many jobs it may run at once (capacity/slots.ts); undefined: PLATFORM_<X>_MAX_CONCURRENT or the platform's default. */
  max_concurrent?: number;
}

const ACCOUNT_ID = /^[A-Za-z0-9._-]{1,64}$/;

const accountBase = z.object({
  id: z.string().regex(ACCOUNT_ID, 'must be 1 to 64 letters, digits, ".", "_" or "-" (it is logged and recorded on tasks)'),
  weight: z.number().positive('must be a positive number').default(1),
  models: z.array(z.string().min(1)).min(1, 'must list at least one model id, or be left out to serve every model').optional(),
  max_concurrent: z.number().int('must be a whole number').positive('must be at least 1').optional(),
});

/**
 * Parses an accounts file's text: a JSON array of accounts whose credentials `credentials` describes. Throws a
 * ConfigError naming `variable`, the entry (index and id) and the field.
 */
export function parseAccounts<S extends z.ZodObject>(variable: string, text: string, credentials: S): (AccountEntry & z.infer<S>)[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw configError(variable, `not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(json) || json.length === 0) throw configError(variable, 'must be a JSON array of at least one account');
  const schema = accountBase.extend(credentials.shape).strict();
  const seen = new Set<string>();
  return json.map((raw: unknown, index) => {
    const rawId = (raw as { id?: unknown } | null)?.id;
    const which = `entry ${index}${typeof rawId === 'string' ? ` (id '${rawId}')` : ''}`;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; ');
      throw configError(variable, `${which}: ${issues}`);
    }
    const entry = parsed.data as AccountEntry & z.infer<S>;
    if (seen.has(entry.id))
      throw configError(variable, `${which}: id '${entry.id}' is used by an earlier entry; each account needs its own id`);
    seen.add(entry.id);
    return entry;
  });
}

/** Reads and parses the file `variable` names, or undefined when the variable is unset. */
export function loadAccounts<S extends z.ZodObject>(
  env: NodeJS.ProcessEnv,
  variable: string,
  credentials: S,
): (AccountEntry & z.infer<S>)[] | undefined {
  const path = env[variable]?.trim();
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(variable, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseAccounts(variable, text, credentials);
}

/**
 * PLATFORM_<X>_MAX_CONCURRENT: how many jobs each of the platform's accounts may run at once where its accounts-file
 * entry sets no `max_concurrent` (the one-account variables included): a whole number ≥ 1, or `unlimited`. Unset: the
 * platform's documented default (PlatformDefinition.concurrency), else unlimited until learned (capacity/slots.ts).
 */
export const maxConcurrentSetting = z
  .string()
  .optional()
  .transform((v, ctx): number | null | undefined => {
    const text = v?.trim();
    if (text === undefined || text === '') return undefined;
    if (text.toLowerCase() === 'unlimited') return null;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number of at least 1, or "unlimited"' });
      return z.NEVER;
    }
    return n;
  });
