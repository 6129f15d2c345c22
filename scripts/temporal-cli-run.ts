/**
 * `npm run temporal:cli -- <command>`: the pinned Temporal CLI (scripts/temporal-cli.ts, installed into .tools/
 * if missing) against the gateway's configured Temporal, e.g.
 *
 *   npm run temporal:cli -- workflow list --query "GenerationStatus = 'failed'"
 *   npm run temporal:cli -- workflow show --workflow-id task_abc123
 *
 * The CLI reads the same variables the gateway does (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS); they are passed with the gateway's defaults filled in, and a flag given on the command line
 * still wins.
 */
import { spawnSync } from 'node:child_process';
import { commonSchema, parseEnv, temporalSchema } from '../core/config';
import { findTemporalCli } from './temporal-cli';

function main(): number {
  const config = parseEnv(commonSchema.extend(temporalSchema.shape), process.env);
  const cli = findTemporalCli();
  if (!cli) {
    console.error('The Temporal CLI is not installed and could not be installed here (npm run temporal:install).');
    return 1;
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
    ...(config.TEMPORAL_API_KEY ? { TEMPORAL_API_KEY: config.TEMPORAL_API_KEY } : {}),
    ...(config.TEMPORAL_TLS ? { TEMPORAL_TLS: 'true' } : {}),
  };
  const result = spawnSync(cli, process.argv.slice(2), { stdio: 'inherit', env });
  return result.status ?? 1;
}

process.exit(main());
