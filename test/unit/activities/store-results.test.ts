/**
 * keepOutputs (run by the poll that finds a job done) and the cleanupResults activity in Temporal's mock activity
 * environment, with a real local HTTP server and a real directory store: the contract the generation workflow
 * relies on — one item per output in order, `stored: false` with the reason instead of a failure (the platform's
 * own reasons, a store that stays down, a copy past the budget), a repeated copy replacing its object.
 */
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createResultActivities, createResultKeeper, STORE_ATTEMPTS, type ResultObserver } from '../../../activities/store-results';
import type { ResultItem, StoreResultsInput } from '../../../core/task';
import type { CleanupReport } from '../../../results/retention';
import { ResultCopier } from '../../../results/copy';
import { DirectoryResultStore } from '../../../results/directory-store';
import { ResultStoreError, type ResultStore } from '../../../results/result-store';

const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), Buffer.alloc(200_000, 3)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(50, 1)]);

let server: Server;
let origin: string;
let dir: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/v.mp4') res.writeHead(200, { 'content-type': 'video/mp4' }).end(MP4);
    else if (req.url === '/frame.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else if (req.url === '/error.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  hits.length = 0;
  dir = mkdtempSync(join(tmpdir(), 'results-activity-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function setup(store: ResultStore = new DirectoryResultStore(dir)) {
  const copier = new ResultCopier(store, {
    maxBytes: 1_000_000,
    connectTimeoutMs: 1_000,
    idleTimeoutMs: 1_000,
    attemptTimeoutMs: 5_000,
    attempts: 2,
    backoffMs: 10,
    allowPrivateOrigins: new Set([origin]),
  });
  const observed: string[] = [];
  const observer: ResultObserver = {
    copied: (outcome, reason, role) => observed.push(`${outcome}:${reason}:${role}`),
    cleaned: (r) => observed.push(`cleaned:${r.deleted}`),
  };
  return {
    store,
    copier,
    observed,
    activities: createResultActivities({ store, observer }),
    keepOutputs: createResultKeeper({ copier, observer }),
  };
}

/** A mock activity attempt as the workflow schedules it: a start-to-close timeout, no schedule-to-close. */
const activityEnv = (info: Partial<ConstructorParameters<typeof MockActivityEnvironment>[0]> = {}) =>
  new MockActivityEnvironment({
    scheduledTimestampMs: Date.now(),
    scheduleToCloseTimeoutMs: 0,
    currentAttemptScheduledTimestampMs: Date.now(),
    ...info,
  });

const input = (outputs: StoreResultsInput['outputs']): StoreResultsInput => ({ taskId: 'task_act', platform: 'V', kind: 'video', outputs });

describe('keepOutputs', () => {
  test('one item per output, in order: stored with key/type/size/sha256, or stored: false with the reason', async () => {
    const { keepOutputs, observed, copier } = setup();
    const items: ResultItem[] = await activityEnv({ startToCloseTimeoutMs: 60_000 }).run(
      keepOutputs,
      input([
        { url: `${origin}/v.mp4`, role: 'result' },
        { url: `${origin}/error.html`, role: 'result' },
        { url: 'ftp://example.com/x.mp4', role: 'result' },
        { url: `${origin}/frame.png`, role: 'last_frame' },
      ]),
    );
    expect(items).toHaveLength(4);
    expect(items[0]).toMatchObject({
      url: `${origin}/v.mp4`,
      stored: true,
      key: 'task_act/0-result.mp4',
      contentType: 'video/mp4',
      bytes: MP4.length,
    });
    expect(items[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(items[1]).toMatchObject({ url: `${origin}/error.html`, stored: false });
    expect(items[1]!.storeError).toMatch(/text\/html/);
    expect(items[2]).toMatchObject({ stored: false });
    expect(items[3]).toMatchObject({ stored: true, key: 'task_act/0-last-frame.png', contentType: 'image/png' });
    expect(observed.sort()).toEqual([
      'failed:bad_url:result',
      'failed:content_type:result',
      'stored:none:last_frame',
      'stored:none:result',
    ]);
    await copier.close();
  });

  test('a repeated copy (the poll run again after its worker died) replaces its object under the same key: one object per output', async () => {
    const { keepOutputs, copier } = setup();
    const outputs = input([
      { url: `${origin}/v.mp4`, role: 'result' },
      { url: `${origin}/frame.png`, role: 'last_frame' },
    ]);
    const first: ResultItem[] = await activityEnv({ startToCloseTimeoutMs: 60_000 }).run(keepOutputs, outputs);
    const again: ResultItem[] = await activityEnv({ startToCloseTimeoutMs: 60_000 }).run(keepOutputs, outputs);
    expect(again).toEqual(first);
    expect(
      readdirSync(join(dir, 'task_act'))
        .filter((f) => !f.startsWith('.') && !f.endsWith('.meta.json'))
        .sort(),
    ).toEqual(['0-last-frame.png', '0-result.mp4']);
    await copier.close();
  });

  test('a store that stays down is tried a few times, then the platform link is kept (stored: false): the task still succeeds', async () => {
    let puts = 0;
    const broken = {
      kind: 'directory',
      put: async (_k: string, body: Readable) => {
        puts += 1;
        body.destroy();
        throw new ResultStoreError('disk full');
      },
    } as unknown as ResultStore;
    const { keepOutputs, copier, observed } = setup(broken);
    const items: ResultItem[] = await activityEnv({ startToCloseTimeoutMs: 60_000 }).run(
      keepOutputs,
      input([{ url: `${origin}/v.mp4`, role: 'result' }]),
    );
    expect(items).toEqual([{ url: `${origin}/v.mp4`, stored: false, storeError: expect.stringMatching(/result store failed.*disk full/) }]);
    expect(puts).toBe(STORE_ATTEMPTS);
    expect(observed).toEqual(['failed:store_unavailable:result']);
    await copier.close();
  });

  test("a copy that cannot finish within the attempt's start-to-close budget ends as stored: false, before the timeout", async () => {
    // 10.5 s budget less the 10 s headroom: half a second for a server that never answers.
    const never = createServer(() => undefined);
    await new Promise<void>((r) => never.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(never.address() as AddressInfo).port}/v.mp4`;
    const slowCopier = new ResultCopier(new DirectoryResultStore(dir), {
      maxBytes: 1_000_000,
      connectTimeoutMs: 1_000,
      idleTimeoutMs: 60_000,
      attemptTimeoutMs: 60_000,
      attempts: 3,
      allowPrivateOrigins: new Set([new URL(url).origin]),
    });
    const slow = createResultKeeper({ copier: slowCopier });
    const started = Date.now();
    const items: ResultItem[] = await activityEnv({ startToCloseTimeoutMs: 10_500 }).run(slow, input([{ url, role: 'result' }]));
    expect(items[0]).toMatchObject({ stored: false });
    expect(Date.now() - started).toBeLessThan(3_000);
    never.closeAllConnections();
    never.close();
    await slowCopier.close();
  });
});

describe('cleanupResults', () => {
  test('deletes what is older than the retention, keeps the rest, and heartbeats', async () => {
    const { activities, store, observed, copier } = setup();
    await store.put('task_a/0-result.png', Readable.from([PNG]), { contentType: 'image/png' });
    await store.put('task_b/0-result.png', Readable.from([PNG]), { contentType: 'image/png' });
    const old = new Date(Date.now() - 3 * 86_400_000);
    utimesSync(join(dir, 'task_a/0-result.png'), old, old);
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const report: CleanupReport = await env.run(activities.cleanupResults, { retentionDays: 2 });
    expect(report.deleted).toBe(1);
    expect(await store.head('task_a/0-result.png')).toBeUndefined();
    expect(await store.head('task_b/0-result.png')).toBeDefined();
    expect(beats.length).toBeGreaterThan(0);
    expect(observed).toEqual(['cleaned:1']);
    await expect(env.run(activities.cleanupResults, { retentionDays: 0 })).rejects.toThrow(/positive/);
    await copier.close();
  });
});
