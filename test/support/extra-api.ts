/**
 * An extra API process against the shared e2e stack, with its own settings (e.g. a short SYNC_TIMEOUT_MS), for
 * tests that need a differently configured API without booting a whole stack.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, Proc, REPO } from './stack';

export async function startExtraApi(env: Record<string, string>): Promise<{ url: string; proc: Proc }> {
  const stackEnv = JSON.parse(process.env.MEDIAGATE_TEST_STACK_ENV ?? 'null') as Record<string, string> | null;
  if (!stackEnv) throw new Error('extra APIs need the shared e2e stack (jest project e2e)');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'api/main.ts')], {
    cwd: REPO,
    env: { ...process.env, ...stackEnv, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = new Proc(`extra-api-${port}`, child, join(REPO, 'test-results', `extra-api-${port}.log`));
  await proc.waitForLine(/API listening/, 60_000);
  return { url: `http://127.0.0.1:${port}`, proc };
}
