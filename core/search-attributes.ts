/**
 * Search attributes the gateway writes on every task, so operators can filter in the Temporal UI, e.g.
 * `GenerationStatus = 'failed' AND GenerationPlatform = 'V'`. All Keyword (SQL visibility allows 10).
 * The owner is the API key's *id*, never its secret: search attributes are stored unencrypted.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const SA = {
  owner: defineSearchAttributeKey('GenerationOwner', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('GenerationStatus', SearchAttributeType.KEYWORD),
  model: defineSearchAttributeKey('GenerationModel', SearchAttributeType.KEYWORD),
  platform: defineSearchAttributeKey('GenerationPlatform', SearchAttributeType.KEYWORD),
  kind: defineSearchAttributeKey('GenerationKind', SearchAttributeType.KEYWORD),
  failureReason: defineSearchAttributeKey('GenerationFailureReason', SearchAttributeType.KEYWORD),
  upstreamTaskId: defineSearchAttributeKey('GenerationUpstreamTaskId', SearchAttributeType.KEYWORD),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);
