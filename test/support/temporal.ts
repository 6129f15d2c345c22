/** A Temporal client for tests and benches that inspect tasks as operators would (describe, search attributes). */
import { Client, Connection } from '@temporalio/client';
import { SA } from '../../core/search-attributes';

export interface TemporalTestClient {
  client: Client;
  close(): Promise<void>;
}

export async function temporalClient(address: string): Promise<TemporalTestClient> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}

/** The upstream job a task recorded (search attribute GenerationUpstreamTaskId); undefined before its submit. */
export async function upstreamIdOf(client: Client, taskId: string): Promise<string | undefined> {
  return (await client.workflow.getHandle(taskId).describe()).typedSearchAttributes.get(SA.upstreamTaskId);
}

/** upstreamIdOf for each task. */
export function upstreamIds(client: Client, ids: string[]): Promise<(string | undefined)[]> {
  return Promise.all(ids.map((id) => upstreamIdOf(client, id)));
}
