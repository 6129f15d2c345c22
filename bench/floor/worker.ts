/**
 * The floor's worker, a process of its own (so the benchmark can read its CPU apart from the gateway's): the floor
 * workflow and its activities on FLOOR_TASK_QUEUE, with the worker's default options.
 *
 *   TEMPORAL_ADDRESS=… FLOOR_TASK_QUEUE=… FLOOR_SIM_URL=… FLOOR_STORE_DIR=… node --import tsx bench/floor/worker.ts
 */
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createFloorActivities } from './activities';

async function main(): Promise<void> {
  const env = (name: string) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is required`);
    return v;
  };
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: env('FLOOR_TASK_QUEUE'),
    workflowsPath: require.resolve('./workflow'),
    activities: createFloorActivities({ baseUrl: env('FLOOR_SIM_URL'), apiKey: 'sim-v-key', storeDir: env('FLOOR_STORE_DIR') }),
  });
  process.once('SIGTERM', () => worker.shutdown());
  process.once('SIGINT', () => worker.shutdown());
  console.log('floor worker RUNNING');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
