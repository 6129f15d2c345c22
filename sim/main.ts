/** Standalone simulator (`npm run sim`): serves platforms T, B and V on SIM_HOST:SIM_PORT. */
import pino from 'pino';
import { loadSimConfig } from './sim-config';
import { startSimulator } from './server';

async function main(): Promise<void> {
  const config = loadSimConfig();
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'sim' }, timestamp: pino.stdTimeFunctions.isoTime });
  const maxConcurrent = { T: config.SIM_T_MAX_CONCURRENT, V: config.SIM_V_MAX_CONCURRENT, B: config.SIM_B_MAX_CONCURRENT };
  const sim = await startSimulator({
    host: config.SIM_HOST,
    port: config.SIM_PORT,
    jobDurationMs: config.SIM_JOB_DURATION_MS,
    publicUrl: config.SIM_PUBLIC_URL,
    dataFile: config.SIM_DATA_FILE,
    maxConcurrent,
  });
  logger.info(
    {
      url: sim.url,
      jobDurationMs: config.SIM_JOB_DURATION_MS,
      dataFile: config.SIM_DATA_FILE,
      maxConcurrent,
    },
    `Simulator (platforms T, B, V) listening on ${sim.url}`,
  );
  const stop = () => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
