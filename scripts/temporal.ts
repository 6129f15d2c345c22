/**
 * `npm run temporal`: the Temporal dev server alone, as production-like setups run it next to separately
 * started workers and APIs. Listens on TEMPORAL_ADDRESS, stores in TEMPORAL_DB_FILE, UI on TEMPORAL_UI_PORT.
 */
import { loadEmbeddedConfig } from './embedded-config';
import { startDevServer } from './dev-server';

async function main(): Promise<void> {
  const config = loadEmbeddedConfig();
  const server = await startDevServer({
    address: config.TEMPORAL_ADDRESS,
    dbFile: config.TEMPORAL_DB_FILE,
    namespace: config.TEMPORAL_NAMESPACE,
    uiPort: config.TEMPORAL_UI_PORT,
  });
  console.log(
    `Temporal dev server ready on ${server.address} (via ${server.via}); Web UI ${server.uiUrl}; database ${config.TEMPORAL_DB_FILE}`,
  );
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
