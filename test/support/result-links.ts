/**
 * Matching the gateway's result links in tests. Links point at the copy the gateway kept
 * (results/result-links.ts): `/v1/generations/:id/content?index=N&token=…`, signed and expiring, so every read
 * issues fresh tokens and two reads of one task differ only in them.
 */

/** A result link for `taskId`'s output `index`, on any loopback port. */
export const keptLink = (taskId: string, index = 0): RegExp =>
  new RegExp(`^http://127\\.0\\.0\\.1:\\d+/v1/generations/${taskId}/content\\?index=${index}&token=[\\w.-]+$`);

/** A record with its links' tokens removed, for comparing two reads of one task. */
export const withoutTokens = <T>(record: T): T => JSON.parse(JSON.stringify(record).replace(/&token=[\w.-]+/g, '')) as T;
