/** Task ids are URL-safe (tasks/idempotency.ts); anything else cannot exist. Every door that reads one from a path uses it. */
export const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;
