import type { TestPostgres } from './postgres';
import type { Stack } from './stack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __MEDIAGATE_STACK__?: Stack }).__MEDIAGATE_STACK__?.stop();
  await (globalThis as { __MEDIAGATE_POSTGRES__?: TestPostgres }).__MEDIAGATE_POSTGRES__?.stop();
}
