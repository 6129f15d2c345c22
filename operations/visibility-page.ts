/**
 * One page of Temporal's visibility, with the token of the next: what lets the operator's lists (every key's tasks,
 * the webhook deliveries) walk 100,000 workflows a page at a time, each page one ListWorkflowExecutions call,
 * instead of reading from the start to skip to a page. The token is Temporal's own, carried to the client as
 * base64url and back with a checksum of its bytes: a token this API did not give is told apart at once (a 400),
 * never handed to Temporal, which answers a malformed one only after its client has retried for about 20 s.
 */
import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';

/** Bytes of the checksum after Temporal's token: enough that a made-up token passes by chance once in 2^64. */
const CHECKSUM_BYTES = 8;
/** How long one page may take: a visibility query is one database read; past this the request fails, it does not hang. */
const PAGE_TIMEOUT_MS = 10_000;

const checksum = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest().subarray(0, CHECKSUM_BYTES);

export interface VisibilityPage {
  infos: Omit<WorkflowExecutionInfo, 'raw'>[];
  /** The next page's token; undefined on the last page. */
  nextPageToken?: string;
}

/** A page token as the client received it: Temporal's bytes, or undefined when it is not one this API gave. */
export function decodePageToken(token: string | undefined): Uint8Array | undefined {
  if (token === undefined || token === '') return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  if (raw.length <= CHECKSUM_BYTES) return undefined;
  const bytes = raw.subarray(0, raw.length - CHECKSUM_BYTES);
  return checksum(bytes).equals(raw.subarray(raw.length - CHECKSUM_BYTES)) ? bytes : undefined;
}

/** Temporal's next-page token as this API hands it to the client. */
export function encodePageToken(bytes: Uint8Array): string {
  return Buffer.concat([bytes, checksum(bytes)]).toString('base64url');
}

export async function visibilityPage(client: Client, query: string, pageSize: number, pageToken?: Uint8Array): Promise<VisibilityPage> {
  const { namespace } = client.options;
  const res = await client.withDeadline(Date.now() + PAGE_TIMEOUT_MS, () =>
    client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize,
      ...(pageToken ? { nextPageToken: pageToken } : {}),
    }),
  );
  const converter = client.workflow.options.loadedDataConverter;
  const infos = await Promise.all((res.executions ?? []).map((raw) => executionInfoFromRaw(raw, converter, undefined, namespace)));
  const next = res.nextPageToken && res.nextPageToken.length > 0 ? encodePageToken(res.nextPageToken) : undefined;
  return { infos, ...(next ? { nextPageToken: next } : {}) };
}
