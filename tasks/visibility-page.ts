/**
 * One page of Temporal's visibility, with the token of the next: what lets the operator's lists (every key's tasks,
 * the webhook deliveries) walk 100,000 workflows a page at a time, each page one ListWorkflowExecutions call,
 * instead of reading from the start to skip to a page. The token is Temporal's own, carried to the client as
 * base64url and back.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';

export interface VisibilityPage {
  infos: Omit<WorkflowExecutionInfo, 'raw'>[];
  /** The next page's token; undefined on the last page. */
  nextPageToken?: string;
}

/** A page token as the client received it: base64url of Temporal's bytes, or undefined when it is not one. */
export function decodePageToken(token: string | undefined): Uint8Array | undefined {
  if (token === undefined || token === '') return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  return Buffer.from(token, 'base64url');
}

export async function visibilityPage(client: Client, query: string, pageSize: number, pageToken?: Uint8Array): Promise<VisibilityPage> {
  const { namespace } = client.options;
  const res = await client.workflowService.listWorkflowExecutions({
    namespace,
    query,
    pageSize,
    ...(pageToken ? { nextPageToken: pageToken } : {}),
  });
  const converter = client.workflow.options.loadedDataConverter;
  const infos = await Promise.all((res.executions ?? []).map((raw) => executionInfoFromRaw(raw, converter, undefined, namespace)));
  const next = res.nextPageToken && res.nextPageToken.length > 0 ? Buffer.from(res.nextPageToken).toString('base64url') : undefined;
  return { infos, ...(next ? { nextPageToken: next } : {}) };
}
