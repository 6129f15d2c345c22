/**
 * Settings of the embedded Temporal dev server and PostgreSQL (`npm start`, `npm run temporal`) and of the local
 * production-shaped cluster (`npm run cluster`): only these scripts read them.
 */
import { z } from 'zod';
import { commonSchema, optionalString, parseEnv, port, temporalSchema } from '../core/config';

export const embeddedOwnSchema = z.object({
  /** The dev server's SQLite file. */
  TEMPORAL_DB_FILE: z.string().default('data/temporal.db'),
  /** The dev server's Web UI port. */
  TEMPORAL_UI_PORT: port(8233),
  /** The Temporal CLI binary; unset: the pinned one (scripts/temporal-cli.ts). */
  TEMPORAL_CLI_PATH: optionalString,
  /** The embedded PostgreSQL's port (127.0.0.1 only), when DATABASE_URL is unset. */
  EMBEDDED_POSTGRES_PORT: port(5433),
  /** The embedded PostgreSQL's data directory. */
  EMBEDDED_POSTGRES_DIR: z.string().default('data/postgres'),
  /** `npm run cluster`: where its PostgreSQL, MinIO, Temporal config, ports and generated secrets live. */
  CLUSTER_DATA_DIR: z.string().default('data/cluster'),
});

export const embeddedConfigSchema = commonSchema.extend(temporalSchema.shape).extend(embeddedOwnSchema.shape);
export type EmbeddedConfig = z.infer<typeof embeddedConfigSchema>;

export function loadEmbeddedConfig(env: NodeJS.ProcessEnv = process.env): EmbeddedConfig {
  return parseEnv(embeddedConfigSchema, env);
}
