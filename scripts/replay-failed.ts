/**
 * Replays tasks that failed, e.g. during an upstream outage, so that the SAME task_id goes on to success
 * (docs/guides/repair.md#replaying-failed-tasks): the command line of operations/replay.ts, which the console's replay runs too.
 *
 *   npm run replay-failed -- [--query "<visibility filter>"] [--task-id <id>] [--dry-run] [--reason "<text>"]
 *
 * Only failed generation tasks whose reason is one an outage causes (`upstream_unavailable`, `deadline_exceeded`,
 * `upstream_lost`) are considered, unless --query names GenerationFailureReason itself. A task the client
 * cancelled is never replayed, whatever the query: a cancel is the client's wish, and its workflow ended Canceled,
 * not Failed (GenerationStatus `cancelled`). Narrow the query with the platform and a time window, e.g.
 * `--query "GenerationPlatform = 'V' AND CloseTime BETWEEN '2026-05-01T10:00:00Z' AND '...'"`.
 *
 * Safe to run twice: a task is reset only while its CURRENT run is the failed one, so a task already replayed
 * (running or succeeded again) is skipped. (A plain `temporal workflow reset --query ...` batch has no such
 * guard: the failed runs stay in visibility, and a second batch would reset and restart the replays.)
 * Connects with the gateway's own configuration (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY...).
 */
import { parseArgs } from 'node:util';
import { Client, Connection, isGrpcServiceError } from '@temporalio/client';
import { commonSchema, parseEnv, temporalSchema } from '../core/config';
import { temporalConnectionOptions } from '../core/temporal-connection';
import { REPLAYABLE, replayFailed, replayQuery } from '../operations/replay';

export { REPLAYABLE, REPLAYABLE_REASONS, replayFailed, replayQuery, type ReplayOptions, type ReplayReport } from '../operations/replay';

/**
 * An error and its causes as one line. The client's errors name only the call ("Failed to list workflows") and
 * wrap the server's gRPC error, whose `details` says why (e.g. "invalid query: ..."); that reason is what the
 * operator needs.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e != null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const details = (e as { details?: unknown }).details;
    const text = typeof details === 'string' && details !== '' ? details : e instanceof Error ? e.message : String(e);
    if (!parts.includes(text)) parts.push(text);
  }
  return parts.join(': ');
}

/** gRPC status 3: how Temporal refuses a visibility query it cannot parse. */
const GRPC_INVALID_ARGUMENT = 3;

export const USAGE = `Replays generation tasks that failed because of an outage, under the same task ids.

Usage: npm run replay-failed -- [--query "<visibility filter>"] [--task-id <id>] [--dry-run] [--reason "<text>"]

  --query     narrow the failed tasks, e.g. "GenerationPlatform = 'V' AND CloseTime > '2026-05-01T10:00:00Z'";
              naming GenerationFailureReason in it replaces the default reasons
              (${REPLAYABLE.join(', ')})
  --task-id   replay one task
  --dry-run   list what would be replayed (and why a named task would not), change nothing
  --reason    the reason recorded on each reset (default: "replay after outage")
  --help      this text

Connects with the gateway's configuration (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS).
Safe to run twice. See docs/guides/repair.md ("Replaying failed tasks").`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        query: { type: 'string' },
        'task-id': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        reason: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const config = parseEnv(commonSchema.extend(temporalSchema.shape), process.env);
  const connection = await Connection.connect(temporalConnectionOptions(config));
  try {
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
    await replayFailed(client, config.TEMPORAL_NAMESPACE, {
      filter: values.query,
      taskId: values['task-id'],
      dryRun: values['dry-run'],
      reason: values.reason,
    });
  } catch (err) {
    // The operator's --query is one part of the query sent: show the whole of it when Temporal refused it.
    const cause = (err as { cause?: unknown }).cause;
    const sent =
      isGrpcServiceError(cause) && cause.code === GRPC_INVALID_ARGUMENT
        ? `\nThe visibility query sent: ${replayQuery(values.query, values['task-id'])}`
        : '';
    console.error(`replay-failed: ${describeError(err)}${sent}`);
    return 1;
  } finally {
    await connection.close();
  }
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`replay-failed: ${describeError(err)}`);
      process.exit(1);
    },
  );
}
