/**
 * platforms/t/announcements.ts with the worker's start-up: T's event configuration belongs to the whole SubAppId,
 * so the worker reads it first (DescribeEventConfig) and replaces only its own or an unset one — or, with
 * PLATFORM_T_EVENTS_TAKE_OVER=true, anyone's. Against the real simulator, preset as another system left it.
 */
import pino from 'pino';
import { createHttpClient } from '../../../../platforms/http';
import { eventConfigChange, tCallbackReceiver } from '../../../../platforms/t/announcements';
import { startSimulator, type Simulator } from '../../../../sim/server';
import { configureAnnouncements } from '../../../../worker/start-up';
import { loadWorkerConfig } from '../../../../worker/worker-config';

const PUBLIC = 'https://gateway.example.com';
const OURS = `${PUBLIC}/v1/callbacks/T`;
const FOREIGN = 'https://other-system.example.com/vod-events';

let sim: Simulator;
const http = createHttpClient({ connectTimeoutMs: 2_000, responseTimeoutMs: 10_000 });
beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
  await http.close();
});
beforeEach(async () => {
  sim.reset();
});

const post = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const actions = async () =>
  ((await (await fetch(`${sim.url}/_sim/requests?platform=T&op=config`)).json()) as { headers: Record<string, string>; body: any }[]).map(
    (r) => ({ action: r.headers['x-tc-action'], body: r.body }),
  );

/** What DescribeEventConfig now answers (through the simulator's own view of the SubAppId). */
async function eventConfig(): Promise<{ Mode: string; NotificationUrl: string }> {
  const res = (await (await post('/_sim/t/event-config', {})).json()) as { Mode: string; NotificationUrl: string };
  return { Mode: res.Mode, NotificationUrl: res.NotificationUrl };
}

/** The worker's start-up step, as worker/main.ts runs it, with its log lines captured. */
async function startWorker(env: Record<string, string>): Promise<{ level: number; msg: string }[]> {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  const config = loadWorkerConfig({
    NODE_ENV: 'development',
    PLATFORMS_ENABLED: 'T',
    SIM_BASE_URL: sim.url,
    PUBLIC_BASE_URL: PUBLIC,
    CALLBACK_SECRET: 'c'.repeat(32),
    ...env,
  });
  await configureAnnouncements(config, http, logger);
  return lines;
}

describe("configurePush: T's event configuration is the whole SubAppId's", () => {
  test('a configuration another system set (PUSH to its URL) is left alone: no ModifyEventConfig, OPERATOR ACTION NEEDED logged', async () => {
    await post('/_sim/t/event-config', { Mode: 'PUSH', NotificationUrl: FOREIGN });
    const log = await startWorker({ PLATFORM_T_EVENTS: 'push' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig']);
    expect(await eventConfig()).toEqual({ Mode: 'PUSH', NotificationUrl: FOREIGN });
    const alert = log.find((l) => l.msg.includes('OPERATOR ACTION NEEDED'));
    expect(alert?.level).toBe(50);
    expect(alert?.msg).toContain(`PUSH to ${FOREIGN}`);
    expect(alert?.msg).toContain('PLATFORM_T_EVENTS_TAKE_OVER');
  });

  test("PULL mode is not switched to over a foreign PUSH URL either; another system's PULL is not turned into our PUSH", async () => {
    await post('/_sim/t/event-config', { Mode: 'PUSH', NotificationUrl: FOREIGN });
    await startWorker({ PLATFORM_T_EVENTS: 'pull' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig']);
    expect(await eventConfig()).toEqual({ Mode: 'PUSH', NotificationUrl: FOREIGN });

    sim.reset();
    await post('/_sim/t/reset', {});
    await post('/_sim/t/event-config', { Mode: 'PULL' });
    const log = await startWorker({ PLATFORM_T_EVENTS: 'push' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig']);
    expect((await eventConfig()).Mode).toBe('PULL');
    expect(log.some((l) => l.msg.includes('OPERATOR ACTION NEEDED') && l.msg.includes('is PULL'))).toBe(true);
  });

  test('with PLATFORM_T_EVENTS_TAKE_OVER=true it is replaced, and the log says what changed', async () => {
    await post('/_sim/t/event-config', { Mode: 'PUSH', NotificationUrl: FOREIGN });
    const log = await startWorker({ PLATFORM_T_EVENTS: 'push', PLATFORM_T_EVENTS_TAKE_OVER: 'true' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig', 'ModifyEventConfig']);
    expect(await eventConfig()).toEqual({ Mode: 'PUSH', NotificationUrl: OURS });
    expect(log.some((l) => l.msg.includes(`Replaced SubAppId`) && l.msg.includes(FOREIGN) && l.msg.includes(OURS))).toBe(true);
    expect(log.some((l) => l.msg.includes('OPERATOR ACTION NEEDED'))).toBe(false);
  });

  test('an unset configuration (never configured) and our own are set as before', async () => {
    await startWorker({ PLATFORM_T_EVENTS: 'push' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig', 'ModifyEventConfig']);
    expect(await eventConfig()).toEqual({ Mode: 'PUSH', NotificationUrl: OURS });

    // A restart finds its own configuration: set again (idempotent; the SignKey cannot be read back).
    sim.reset();
    const log = await startWorker({ PLATFORM_T_EVENTS: 'push', PLATFORM_T_EVENTS_SIGN_KEY: 'Key123' });
    expect((await actions()).map((a) => a.action)).toEqual(['DescribeEventConfig', 'ModifyEventConfig']);
    expect((await actions())[1]!.body).toMatchObject({ Mode: 'PUSH', NotificationUrl: OURS, SignKey: 'Key123' });
    expect(log.some((l) => l.msg.includes('OPERATOR ACTION NEEDED'))).toBe(false);
  });

  test('PLATFORM_T_EVENTS_TAKE_OVER must be true or false', () => {
    expect(() =>
      loadWorkerConfig({ NODE_ENV: 'development', PLATFORMS_ENABLED: 'T', PLATFORM_T_EVENTS: 'pull', PLATFORM_T_EVENTS_TAKE_OVER: 'yes' }),
    ).toThrow(/PLATFORM_T_EVENTS_TAKE_OVER/);
  });
});

describe('eventConfigChange', () => {
  test.each([
    [{ Mode: 'PUSH', NotificationUrl: '' }, 'push', 'unset'],
    [{}, 'pull', 'unset'],
    [{ Mode: 'PUSH', NotificationUrl: OURS }, 'push', 'same'],
    [{ Mode: 'PULL', NotificationUrl: FOREIGN }, 'pull', 'same'],
    [{ Mode: 'PUSH', NotificationUrl: FOREIGN }, 'push', 'foreign'],
    [{ Mode: 'PUSH', NotificationUrl: OURS }, 'pull', 'foreign'],
    [{ Mode: 'PULL' }, 'push', 'foreign'],
  ] as const)('%j, wanting %s → %s', (current, mode, kind) => {
    expect(eventConfigChange(current, { mode, notificationUrl: OURS }).kind).toBe(kind);
  });
});

describe("T's pushed events: only a JSON object is one; a refused event says which task and job it claims", () => {
  const receive = (body: string, env: Record<string, string> = { PLATFORM_T_EVENTS: 'push' }) =>
    tCallbackReceiver.create(env)({ rest: [], query: {}, headers: {}, rawBody: Buffer.from(body), url: OURS, receivedAt: Date.now() });
  const event = { EventType: 'AigcVideoTaskComplete', AigcVideoCompleteEvent: { TaskId: 'job-1', SessionContext: 'task_1' } };

  test.each(['1', '"x"', 'true', 'null', '[]', 'not json'])('body %p → 400', (body) => {
    expect(() => receive(body)).toThrow(expect.objectContaining({ status: 400 }));
  });

  test('an unsigned or badly signed event, with a sign key set, is 401 carrying its task and job, unverified', () => {
    const signed = { PLATFORM_T_EVENTS: 'push', PLATFORM_T_EVENTS_SIGN_KEY: 'tSignKey0123' };
    expect(() => receive(JSON.stringify(event), signed)).toThrow(
      expect.objectContaining({ status: 401, claims: [{ taskId: 'task_1', upstreamTaskId: 'job-1' }] }),
    );
    const t = Math.floor(Date.now() / 1000) + 60;
    expect(() => receive(JSON.stringify({ ...event, T: t, Sign: '0'.repeat(32) }), signed)).toThrow(
      expect.objectContaining({ status: 401, claims: [{ taskId: 'task_1', upstreamTaskId: 'job-1' }] }),
    );
    expect(() => receive(JSON.stringify({ EventType: 'Other', T: t, Sign: '0'.repeat(32) }), signed)).toThrow(
      expect.objectContaining({ status: 401, claims: [] }),
    );
  });
});
