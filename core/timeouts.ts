/**
 * The one bound shared by the workflow (activity attempt timeout) and the configuration (upstream HTTP
 * timeouts must fit inside it). No I/O: workflows import it.
 *
 * One attempt of submit or poll is one HTTP call. Temporal must not start a second attempt while the first may
 * still be waiting for the platform — for platform V, which has no dedup key, that overlap could be a second
 * paid job — so an attempt gets a little more than the HTTP client's own bound
 * (UPSTREAM_CONNECT_TIMEOUT_MS + UPSTREAM_RESPONSE_TIMEOUT_MS). It is also how long Temporal waits before it
 * retries an attempt that was running on a worker that died (SIGKILL, OOM).
 */
export const ACTIVITY_ATTEMPT_TIMEOUT_MS = 45_000;

/** Headroom between the HTTP client's bound and the attempt timeout (worker scheduling, serialisation). */
export const ATTEMPT_HEADROOM_MS = 2_000;
