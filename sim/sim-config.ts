/**
 * The simulator's own configuration (it reads nothing of the gateway's): environment variables parsed with zod,
 * a bad value failing at start with a message naming the variable.
 */
import { z } from 'zod';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/**
 * A platform's concurrency per account: a whole number of jobs queued or running at once; empty or `unlimited`: no
 * limit (null); unset: `dflt`, the platform's documented default (undefined where it documents none: unlimited).
 */
const maxConcurrent = (dflt: number | undefined) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return dflt;
      const t = v.trim().toLowerCase();
      if (t === '' || t === 'unlimited') return null;
      if (/^\d+$/.test(t)) return Number(t);
      ctx.addIssue({ code: 'custom', message: 'must be a whole number of jobs, or empty / "unlimited" for no limit' });
      return z.NEVER;
    });

export const simConfigSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** How long a simulated job takes from submission to success. */
  SIM_JOB_DURATION_MS: z.coerce.number().int().nonnegative().default(8_000),
  /** Base URL the simulator puts into result links; unset: derived from each request's Host header. */
  SIM_PUBLIC_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
  /** Where the simulator keeps its jobs across restarts. */
  SIM_DATA_FILE: z.string().default('data/sim-jobs.json'),
  /** Jobs one platform T account may have queued or running at once: T runs one AIGC task at a time by default. */
  SIM_T_MAX_CONCURRENT: maxConcurrent(1),
  /** The same for a platform V account: Ark's limit depends on the account's recharge amount; unlimited until set. */
  SIM_V_MAX_CONCURRENT: maxConcurrent(undefined),
  /** The same for a platform B account: B publishes no limit; unlimited until set. */
  SIM_B_MAX_CONCURRENT: maxConcurrent(undefined),
});

export type SimConfig = z.infer<typeof simConfigSchema>;

export function loadSimConfig(env: NodeJS.ProcessEnv = process.env): SimConfig {
  const parsed = simConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
