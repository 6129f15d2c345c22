/** Standalone simulator (`npm run sim`): serves platforms T, B and V on SIM_HOST:SIM_PORT. */
import { loadConfig, SIM_CREDENTIALS } from '../core/config';
import { createLogger } from '../core/logger';
import { startSimulator } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('sim', config.LOG_LEVEL);
  const sim = await startSimulator({
    host: config.SIM_HOST,
    port: config.SIM_PORT,
    jobDurationMs: config.SIM_JOB_DURATION_MS,
    credentials: SIM_CREDENTIALS,
    publicUrl: process.env.SIM_PUBLIC_URL,
  });
  logger.info({ url: sim.url, jobDurationMs: config.SIM_JOB_DURATION_MS }, `Simulator (platforms T, B, V) listening on ${sim.url}`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
