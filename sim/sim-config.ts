/**
 * The simulator's own configuration (it reads nothing of the gateway's): environment variables parsed with zod,
 * a bad value failing at start with a message naming the variable.
 */
import { z } from 'zod';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

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
