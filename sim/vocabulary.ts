/** The simulator's own words for platforms, kinds, operations and faults (no imports: every sim module may use them). */
export const SIM_PLATFORMS = ['T', 'B', 'V'] as const;
export type SimPlatform = (typeof SIM_PLATFORMS)[number];
export type SimKind = 'video' | 'image';

/** What a request does, for counters, recorded requests and targeted faults. */
export type SimOp = 'submit' | 'poll' | 'list' | 'cancel' | 'events' | 'config';

/**
 * An injected fault: an HTTP status answered in the platform's own error shape, `reset` (the connection is
 * destroyed before anything is done), `drop` (the request is carried out — a job is created — and then the
 * connection is destroyed instead of answering: the "lost answer" a retried create must reconcile), or `slow`
 * (the request is carried out at once and its answer held back: a client waiting on it can die meanwhile).
 */
export type FaultStatus = 429 | 500 | 503 | 'reset' | 'drop' | 'slow';
