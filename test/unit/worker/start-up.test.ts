/**
 * The worker's start-up split into named steps, and the shape of its logs, each pinned
 * on its own: the copy's limits from the configuration, the SDK's log lines without task tokens, the bundler kept
 * to its warnings and errors, the bundle's one line. A real worker's output is checked in
 * test/system/worker-logs.test.ts.
 */
import pino from 'pino';
import type { Logger } from '../../../core/logger';
import { copyLimits, logPlatforms } from '../../../worker/start-up';
import { temporalLogger } from '../../../worker/temporal-logger';
import { loadWorkerConfig } from '../../../worker/worker-config';
import { bundleLine, bundlerLogger } from '../../../worker/workflow-bundle';

/** A real pino logger whose lines are kept, parsed. */
function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('copyLimits', () => {
  test("the copy's limits are the RESULTS_* settings", () => {
    const limits = copyLimits(
      loadWorkerConfig({
        RESULTS_MAX_BYTES: '1000',
        RESULTS_CONNECT_TIMEOUT_MS: '1',
        RESULTS_IDLE_TIMEOUT_MS: '2',
        RESULTS_COPY_TIMEOUT_MS: '3',
        RESULTS_COPY_ATTEMPTS: '4',
      }),
    );
    expect(limits).toMatchObject({ maxBytes: 1000, connectTimeoutMs: 1, idleTimeoutMs: 2, attemptTimeoutMs: 3, attempts: 4 });
  });

  test("while a platform is simulated, the simulator's origin (following SIM_PORT) is the one private origin allowed unlisted", () => {
    expect([...copyLimits(loadWorkerConfig({ SIM_PORT: '9123' })).allowPrivateOrigins]).toEqual(['http://127.0.0.1:9123']);
    const listed = copyLimits(loadWorkerConfig({ RESULTS_ALLOW_PRIVATE_ORIGINS: 'http://10.0.0.5:9000', SIM_BASE_URL: 'http://sim:8090' }));
    expect([...listed.allowPrivateOrigins].sort()).toEqual(['http://10.0.0.5:9000', 'http://sim:8090']);
  });

  test('with every platform real, no simulator origin is allowed', () => {
    const config = loadWorkerConfig({
      NODE_ENV: 'production',
      PLATFORMS_ENABLED: 'V',
      PLATFORM_V_BASE_URL: 'https://v.example/api/v3',
      PLATFORM_V_API_KEY: 'k',
      RESULT_URL_SECRET: 'x'.repeat(40),
    });
    expect([...copyLimits(config).allowPrivateOrigins]).toEqual([]);
  });
});

describe("the SDK's log lines", () => {
  test('keep their message, level and metadata, without the base64 task token', () => {
    const { logger, lines } = capture();
    const sdk = temporalLogger(logger);
    sdk.info('Submitted upstream job', {
      taskToken: 'CiQ5ZjBh'.repeat(40),
      activityType: 'submitGeneration',
      workflowId: 'task_1',
      platform: 'V',
    });
    sdk.log('WARN', 'Activity failed', { taskToken: 'x', attempt: 2 });
    sdk.debug('Worker state changed', { state: 'RUNNING' });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'Submitted upstream job',
        activityType: 'submitGeneration',
        workflowId: 'task_1',
        platform: 'V',
      }),
      expect.objectContaining({ level: 40, msg: 'Activity failed', attempt: 2 }),
      expect.objectContaining({ level: 20, msg: 'Worker state changed', state: 'RUNNING' }),
    ]);
    for (const line of lines) expect(line).not.toHaveProperty('taskToken');
  });

  test('"Workflow failed" carries its reason: an error in the metadata is its name, message, failure type and causes, never {}', () => {
    const { logger, lines } = capture();
    const failure = Object.assign(new Error('The task failed: content_policy'), { name: 'ApplicationFailure', type: 'content_policy' });
    Object.assign(failure, { cause: new Error('upstream said: sensitive content') });
    temporalLogger(logger).warn('Workflow failed', { error: failure, workflowId: 'task_2' });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'Workflow failed',
        workflowId: 'task_2',
        error: {
          name: 'ApplicationFailure',
          message: 'The task failed: content_policy',
          type: 'content_policy',
          cause: { name: 'Error', message: 'upstream said: sensitive content' },
        },
      }),
    ]);
  });
});

describe('logPlatforms', () => {
  const config = loadWorkerConfig({});
  test('a simulated platform is an info line under npm start, a warning in the production image (NODE_ENV=production)', () => {
    const dev = capture();
    logPlatforms(config, dev.logger);
    expect(dev.lines.length).toBeGreaterThan(0);
    expect(dev.lines.filter((l) => l.level !== 30)).toEqual([]);
    const prod = capture();
    logPlatforms({ ...config, NODE_ENV: 'production' }, prod.logger);
    expect(prod.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual(
      expect.arrayContaining([expect.stringContaining('Platform T is not configured')]),
    );
  });
});

describe('the workflow bundle', () => {
  test("the bundler's info (webpack's stats report) is dropped; its warnings and errors are kept", () => {
    const { logger, lines } = capture();
    const bundler = bundlerLogger(logger);
    bundler.info('asset workflow-bundle-0c1f.js 1.4 MiB [emitted] …'.repeat(200));
    bundler.log('INFO', 'Workflow bundle created', { size: '1.40MB' });
    bundler.debug('debug');
    bundler.warn('Your Workflow code is importing a disallowed module');
    bundler.log('ERROR', 'Module not found: ./missing');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'Your Workflow code is importing a disallowed module'],
      [50, 'Module not found: ./missing'],
    ]);
  });

  test('is told in one short line: size and time', () => {
    expect(bundleLine({ bytes: 1.44 * 1024 ** 2, ms: 3_210 })).toBe('Workflow bundle built: 1.4 MiB in 3.2 s');
  });
});
