/**
 * Money no request can get around, tried as a hostile client would: a stack of its own with prices set in
 * PRICES_FILE and the ledger in a real PostgreSQL, driven over HTTP, with the simulated platforms as witnesses of
 * what was paid for.
 *
 * - Two requests racing under one Idempotency-Key: only the one whose fingerprint reserved the task ever runs, and
 *   no key's spend passes its budget (20 racing pairs; 12 more on a spent budget with an unpriced model).
 * - The form door of POST /v1/videos refuses what the JSON door refuses (bytes that are not UTF-8, NUL, encoded
 *   surrogates, field names of Object.prototype), naming the field, and nothing is paid.
 * - An uploaded image is kept only once its task is accepted.
 * - A budget fails closed for models it cannot price, unless the key allows them.
 * - A budget's currency change starts the new currency from zero.
 * - A frozen Temporal server (SIGSTOP) gets a submit a 503 with Retry-After, not a hang; resumed, the same
 *   Idempotency-Key finds its one task.
 * - A platform's own field cannot make more than was priced: T's output_config is priced as the general fields it
 *   overrides, or refused where it contradicts them (12 racing requests on a 1 CNY budget).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../support/client';
import { rawMultipart, type RawPart } from '../support/forms';
import { queryRows, usePostgres } from '../support/postgres';
import { REPO } from '../support/stack';
import { useStack } from '../support/use-stack';
import { waitFor } from '../support/wait-for';
import { until } from './faults-support';

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'money-admin-token-0123456789abcdefghijkl';
/** Kling 2.1 on platform T at 0.1 USD a second: 5 s cost 0.5 USD, 10 s 1.0 USD. V20 (B) at 0.245 CNY a second. */
const pricesFile = join(tmpdir(), `money-prices-${process.pid}.json`);
writeFileSync(
  pricesFile,
  JSON.stringify({
    'VendorK-2.1': { currency: 'USD', source: 'test', per_second: { '*': 0.1 } },
    V20: { currency: 'CNY', source: 'test', per_second: { '*': 0.245 } },
    'VendorQ-q2': { currency: 'CNY', source: 'test', per_second: { '720p': 0.1, '1080p': 1.0 } },
    'GEM-3.0': { currency: 'CNY', source: 'test', per_image: { standard: 0.2, hd: 1.5 } },
  }),
);
const KLING = 'VendorK-2.1';
/** V's Seedance: no published price, none set here. */
const UNPRICED = 'vendor-video-1-0-pro-250528';
const V20 = {
  model: 'V20',
  image_url: 'https://x.test/head.jpeg',
  last_frame_url: 'https://x.test/tail.jpeg',
  duration: 4,
  resolution: '720p',
};
const PNG = readFileSync(join(REPO, 'sim', 'assets', 'sample.png'));

const db = usePostgres();
// Races, not capacity, are under test: T's accounts run any number of jobs at once here (simulator and gateway alike).
const gw = useStack(() => ({
  name: 'money',
  env: {
    DATABASE_URL: db.pg.url,
    ADMIN_TOKEN,
    PRICES_FILE: pricesFile,
    SIM_T_MAX_CONCURRENT: 'unlimited',
    PLATFORM_T_MAX_CONCURRENT: 'unlimited',
  },
}));
/** Keys are made per test run: ids are never reused. */
const RUN = Date.now().toString(36);

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${gw.stack.apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: await r.json() };
}

async function makeKey(id: string, fields: Record<string, unknown> = {}): Promise<ApiClient & { id: string }> {
  const made = await admin('POST', '/admin/v1/keys', { id: `${id}-${RUN}`, ...fields });
  expect(made.status).toBe(201);
  return Object.assign(new ApiClient(gw.stack.apiUrl, made.body.secret as string), { id: `${id}-${RUN}` });
}

const ledgerRows = (sql: string, params: unknown[] = []) => queryRows(db.pg.url, sql, params);

const entriesOf = (keyId: string) =>
  ledgerRows(
    'SELECT task_id, model, state, estimated_micros, final_micros FROM ledger_entries WHERE key_id = $1 AND outcome IS DISTINCT FROM $2',
    [keyId, 'never_started'],
  );

/** The simulated platform's creates whose prompt is `prompt` (T names it Prompt; B and V carry it too). */
async function createsWithPrompt(platform: 'T' | 'B' | 'V', prompt: string): Promise<any[]> {
  return (await gw.sim.requests(platform, 'submit')).filter((r) => JSON.stringify(r.body ?? {}).includes(prompt));
}

/** How many creates any simulated platform received for a prompt containing `marker`. */
const createsFor = async (marker: string) =>
  (await Promise.all((['T', 'B', 'V'] as const).map((p) => createsWithPrompt(p, marker)))).flat().length;

describe("a platform's own fields are priced or refused", () => {
  /** 12 at once of `body` on a fresh 1 CNY key: the statuses, and T's creates for the prompt. */
  async function twelveAtOnce(name: string, body: Record<string, unknown>) {
    const key = await makeKey(name, { budget: { amount: 1, currency: 'CNY', period: 'total' } });
    const prompt = `money fields ${RUN} ${name} [sim:duration=300]`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        key.post('/v1/async/videos/generations', { model: 'VendorQ-q2', action: 'text_to_video', prompt, ...body }),
      ),
    );
    return { key, answers, creates: () => createsWithPrompt('T', prompt) };
  }

  test('12 at once of 1 s 720P with output_config 10 s 1080P on a 1 CNY budget: each a 400 naming output_config, no job upstream', async () => {
    const { key, answers, creates } = await twelveAtOnce('oc-contradicts', {
      duration: 1,
      resolution: '720P',
      output_config: { Duration: 10, Resolution: '1080P' },
    });
    expect(answers.map((a) => [a.status, a.body.error?.param])).toEqual(Array(12).fill([400, 'output_config.Duration']));
    expect(await creates()).toHaveLength(0);
    expect(await entriesOf(key.id)).toHaveLength(0);
  });

  test('output_config alone is what is priced: 10 s 1080P (10 CNY) is 402 twelve times; 2 s 720P (0.2 CNY) runs five times and the budget holds', async () => {
    const dear = await twelveAtOnce('oc-dear', { output_config: { Duration: 10, Resolution: '1080P' } });
    expect(dear.answers.map((a) => [a.status, a.body.error?.code])).toEqual(Array(12).fill([402, 'budget_exceeded']));
    expect(await dear.creates()).toHaveLength(0);

    const cheap = await twelveAtOnce('oc-cheap', { output_config: { Duration: 2, Resolution: '720P' } });
    const accepted = cheap.answers.filter((a) => a.status === 200).length;
    expect(cheap.answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error.code])).toEqual(
      Array(12 - accepted).fill([402, 'budget_exceeded']),
    );
    expect(accepted).toBe(5);
    await until(
      'the five are settled',
      async () => (await entriesOf(cheap.key.id)).filter((e) => e.state !== 'reserved').length === accepted,
      120_000,
    );
    // What T was asked for is what was priced: 2 s at 720P each, and the key spent exactly its budget.
    const creates = await cheap.creates();
    expect(creates.map((c) => [c.body.OutputConfig.Duration, c.body.OutputConfig.Resolution])).toEqual(Array(accepted).fill([2, '720P']));
    expect((await entriesOf(cheap.key.id)).map((e) => Number(e.final_micros))).toEqual(Array(accepted).fill(200_000));
    expect((await cheap.key.get('/v1/usage')).body.budget.spent).toBe(1);
  });
});

describe('a model priced for some cases only', () => {
  test('GEM-3.0 (priced by quality) without a quality: 402 unpriced_model saying the quality is missing, not that there is no price', async () => {
    const key = await makeKey('by-quality', { budget: { amount: 5, currency: 'CNY', period: 'total' } });
    const prompt = `money quality ${RUN}`;
    const none = await key.post('/v1/async/images/generations', { model: 'GEM-3.0', prompt });
    expect([none.status, none.body.error.code, none.body.error.param]).toEqual([402, 'unpriced_model', 'model']);
    expect(none.body.error.message).toContain('priced per image by quality or size (standard, hd)');
    expect(none.body.error.message).toContain('send quality');
    expect(none.body.error.message).not.toContain('has no price');
    const withQuality = await key.post('/v1/async/images/generations', { model: 'GEM-3.0', prompt, quality: 'standard' });
    expect(withQuality.status).toBe(200);
  });
});

describe('two requests racing under one Idempotency-Key', () => {
  test('20 racing pairs on a 0.6 USD budget: the 5-second request runs, its 10-second twin never does; spend stays within the budget', async () => {
    const PAIRS = 20;
    const keys = await Promise.all(
      Array.from({ length: PAIRS }, (_, i) => makeKey(`race-${i}`, { budget: { amount: 0.6, currency: 'USD', period: 'total' } })),
    );
    const tally = { xAccepted: 0, yReused: 0, yOverBudget: 0, yInUse: 0, yAccepted: 0 };
    for (const [i, key] of keys.entries()) {
      const prompt = `money race ${RUN} pair ${i} [sim:duration=300]`;
      const headers = { 'Idempotency-Key': `race-${i}` };
      const x = () => key.post('/v1/async/videos/generations', { model: KLING, prompt, duration: 5 }, headers);
      const y = () => key.post('/v1/async/videos/generations', { model: KLING, prompt, duration: 10 }, headers);
      // Both at the same moment; which is sent first alternates.
      const [a, b] = await Promise.all(i % 2 === 0 ? [x(), y()] : [y(), x()]);
      const [xr, yr] = i % 2 === 0 ? [a, b] : [b, a];
      expect(xr.status).toBe(200);
      tally.xAccepted += 1;
      if (yr.status === 200) tally.yAccepted += 1;
      else if (yr.body.error.code === 'idempotency_key_reused') tally.yReused += 1;
      else if (yr.body.error.code === 'budget_exceeded') tally.yOverBudget += 1;
      else if (yr.body.error.code === 'idempotency_key_in_use') tally.yInUse += 1;
      expect([409, 402]).toContain(yr.status);
    }
    // Every task ran its own request: one job each, of 5 seconds, and each key's entry is the 5-second estimate.
    const durations: number[] = [];
    for (const [i, key] of keys.entries()) {
      const creates = await createsWithPrompt('T', `money race ${RUN} pair ${i} `);
      expect(creates).toHaveLength(1);
      durations.push(creates[0]!.body.OutputConfig.Duration);
      const entries = await entriesOf(key.id);
      expect(entries.map((e) => [e.model, Number(e.estimated_micros)])).toEqual([[KLING, 500_000]]);
    }
    expect(durations.every((d) => d === 5)).toBe(true);
    // Once settled, no key has spent more than its budget.
    await until(
      'every race task is settled',
      async () =>
        (await ledgerRows("SELECT 1 FROM ledger_entries WHERE key_id LIKE $1 AND state = 'reserved'", [`race-%-${RUN}`])).length === 0,
      120_000,
    );
    const spent = await Promise.all(keys.map(async (k) => (await k.get('/v1/usage')).body.budget.spent as number));
    expect(spent.every((s) => s <= 0.6)).toBe(true);
    console.log(
      `[money-race] pairs=${PAIRS} xAccepted=${tally.xAccepted} yAccepted=${tally.yAccepted} yReused409=${tally.yReused} yOverBudget402=${tally.yOverBudget} yInUse409=${tally.yInUse} jobs=${durations.length} tenSecondJobs=${durations.filter((d) => d === 10).length} maxSpent=${Math.max(...spent)}`,
    );
    expect(tally.yAccepted).toBe(0);
  });

  test('12 racing pairs on a spent budget that allows unpriced models: the unpriced request runs, the priced one never does, and the ledger files it under its own model', async () => {
    const PAIRS = 12;
    const keys = await Promise.all(
      Array.from({ length: PAIRS }, (_, i) =>
        makeKey(`spent-${i}`, { budget: { amount: 0, currency: 'USD', period: 'total' }, allow_unpriced: true }),
      ),
    );
    let yAccepted = 0;
    for (const [i, key] of keys.entries()) {
      const prompt = `money spent ${RUN} pair ${i} [sim:duration=300]`;
      const headers = { 'Idempotency-Key': `spent-${i}` };
      const x = () => key.post('/v1/async/videos/generations', { model: UNPRICED, prompt, duration: 5 }, headers);
      const y = () => key.post('/v1/async/videos/generations', { model: KLING, prompt, duration: 10 }, headers);
      const [a, b] = await Promise.all(i % 2 === 0 ? [x(), y()] : [y(), x()]);
      const [xr, yr] = i % 2 === 0 ? [a, b] : [b, a];
      expect(xr.status).toBe(200);
      if (yr.status === 200) yAccepted += 1;
      expect([409, 402]).toContain(yr.status);
      expect((await entriesOf(key.id)).map((e) => e.model)).toEqual([UNPRICED]);
      expect(await createsWithPrompt('T', prompt)).toHaveLength(0);
    }
    console.log(`[money-race-spent] pairs=${PAIRS} unpricedAccepted=${PAIRS} pricedAccepted=${yAccepted}`);
    expect(yAccepted).toBe(0);
  });

  test('a faithful retry gets its task back; the same key with another body is 409 whatever the order', async () => {
    const key = await makeKey('retry', { budget: { amount: 5, currency: 'USD', period: 'total' } });
    const body = { model: KLING, prompt: `money retry ${RUN} [sim:duration=300]`, duration: 5 };
    const first = await key.post('/v1/async/videos/generations', body, { 'Idempotency-Key': 'retry' });
    const again = await key.post('/v1/async/videos/generations', body, { 'Idempotency-Key': 'retry' });
    expect(first.status).toBe(200);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.task_id]).toEqual([200, 'true', first.body.task_id]);
    const other = await key.post('/v1/async/videos/generations', { ...body, duration: 10 }, { 'Idempotency-Key': 'retry' });
    expect([other.status, other.body.error.code, other.body.error.param]).toEqual([409, 'idempotency_key_reused', 'Idempotency-Key']);
    // The Videos door under the same key names the same task id, with another request: refused too.
    const viaVideos = await key.post('/v1/videos', { model: KLING, prompt: body.prompt, seconds: '5' }, { 'Idempotency-Key': 'retry' });
    expect([viaVideos.status, viaVideos.body.error.code]).toEqual([409, 'idempotency_key_reused']);
    expect(await entriesOf(key.id)).toHaveLength(1);
  });
});

/** POST /v1/videos as a form, byte for byte. */
async function postForm(key: ApiClient, parts: RawPart[]): Promise<{ status: number; body: any }> {
  const { body, contentType } = rawMultipart(parts);
  const r = await fetch(`${gw.stack.apiUrl}/v1/videos`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key.key}`, 'Content-Type': contentType },
    body,
  });
  return { status: r.status, body: await r.json() };
}

describe('the form door of POST /v1/videos refuses what the JSON door refuses, and bills nothing', () => {
  const BAD_TEXT: [string, Buffer][] = [
    ['a NUL', Buffer.from('a\u0000b', 'utf8')],
    ['bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0xfd])],
    ['a CESU-8 encoded surrogate', Buffer.concat([Buffer.from('fox '), Buffer.from([0xed, 0xa0, 0x80])])],
    ['a zero-width space then \\xff', Buffer.concat([Buffer.from([0xe2, 0x80, 0x8b]), Buffer.from([0xff])])],
  ];

  test.each(BAD_TEXT)('a prompt with %s: 400 naming prompt; no job, no ledger entry', async (_what, bytes) => {
    const i = BAD_TEXT.findIndex(([w]) => w === _what);
    const key = await makeKey(`form-text-${i}`, { budget: { amount: 5, currency: 'USD', period: 'total' } });
    const marker = `money form ${RUN} ${i} `;
    const r = await postForm(key, [
      { name: 'model', value: KLING },
      { name: 'seconds', value: '5' },
      { name: 'prompt', value: Buffer.concat([Buffer.from(marker), bytes]) },
    ]);
    expect([r.status, r.body.error.param]).toEqual([400, 'prompt']);
    // The JSON door says the same of the same text, where JSON can carry it.
    if (_what === 'a NUL') {
      const json = await key.post('/v1/videos', { model: KLING, seconds: '5', prompt: 'a\u0000b' });
      expect([json.status, json.body.error.param]).toEqual([400, 'prompt']);
    }
    expect(await createsFor(marker)).toBe(0);
    expect(await entriesOf(key.id)).toEqual([]);
  });

  test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'prototype'])(
    'a form field named %s: 400 naming it, never a 500',
    async (name) => {
      const key = await makeKey(`form-name-${name.replace(/_/g, '')}`);
      const r = await postForm(key, [
        { name: 'model', value: KLING },
        { name: 'prompt', value: 'a fox' },
        { name, value: 'x' },
      ]);
      expect([r.status, r.body.error.param]).toEqual([400, name]);
    },
  );
});

describe('an uploaded image is kept only once its task is accepted', () => {
  /** A PNG of its own (bytes after IEND change its digest, not what it is), and where it would be kept. */
  const uniquePng = (tag: string) => {
    const bytes = Buffer.concat([PNG, Buffer.from(`money ${RUN} ${tag}`)]);
    return { bytes, keptAt: join(gw.stack.resultsDir, 'inputs', `${createHash('sha256').update(bytes).digest('hex')}.png`) };
  };
  const upload = (key: ApiClient, png: Buffer, fields: Record<string, string>) =>
    postForm(key, [
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      { name: 'input_reference', value: png, filename: 'ref.png', type: 'image/png' },
    ]);

  test('refused for its budget (402), its model (403) or a field (400): nothing is kept; accepted: kept', async () => {
    const broke = await makeKey('upload-broke', { budget: { amount: 0.1, currency: 'USD', period: 'total' } });
    const narrow = await makeKey('upload-narrow', { models: [UNPRICED] });
    const open = await makeKey('upload-open');
    const prompt = `money refused upload ${RUN}`;
    const cases: [ApiClient, Record<string, string>, number][] = [
      [broke, { model: KLING, prompt, seconds: '5' }, 402],
      [narrow, { model: KLING, prompt, seconds: '5' }, 403],
      [open, { model: KLING, prompt, seconds: '5', ratio: '2:1' }, 400],
    ];
    for (const [i, [key, fields, status]] of cases.entries()) {
      const png = uniquePng(`refused-${i}`);
      const r = await upload(key, png.bytes, fields);
      expect(r.status).toBe(status);
      expect(existsSync(png.keptAt)).toBe(false);
    }
    expect(await createsFor(prompt)).toBe(0);
    // The control: an accepted upload is kept where the refused ones were looked for.
    const png = uniquePng('accepted');
    const accepted = await upload(open, png.bytes, { model: KLING, prompt: `money upload ${RUN} [sim:duration=300]`, seconds: '5' });
    expect(accepted.status).toBe(200);
    expect(existsSync(png.keptAt)).toBe(true);
  });
});

describe('a budget fails closed for models it cannot price', () => {
  test('a model without a price, or priced in another currency: 402 unpriced_model naming the model; allowed per key, counted', async () => {
    const key = await makeKey('unpriced', { budget: { amount: 10, currency: 'USD', period: 'month' } });
    const prompt = `money unpriced refused ${RUN}`;
    const noPrice = await key.post('/v1/async/videos/generations', { model: UNPRICED, prompt, duration: 5 });
    expect([noPrice.status, noPrice.body.error.code, noPrice.body.error.param]).toEqual([402, 'unpriced_model', 'model']);
    expect(noPrice.body.error.message).toContain(UNPRICED);
    const otherCurrency = await key.post('/v1/async/videos/generations', { ...V20, prompt });
    expect([otherCurrency.status, otherCurrency.body.error.code]).toEqual([402, 'unpriced_model']);
    expect(otherCurrency.body.error.message).toMatch(/priced in CNY, not in the budget's USD/);
    expect(await createsFor(prompt)).toBe(0);
    expect(await entriesOf(key.id)).toEqual([]);

    // The operator allows it for this key: accepted, and the budget says how many such tasks went through.
    const patched = await admin('PATCH', `/admin/v1/keys/${key.id}`, { allow_unpriced: true });
    expect([patched.status, patched.body.allow_unpriced]).toEqual([200, true]);
    await until(
      'the key change reaches the API',
      async () =>
        (
          await key.post('/v1/async/videos/generations', {
            model: UNPRICED,
            prompt: `money unpriced ${RUN} [sim:duration=300]`,
            duration: 5,
          })
        ).status === 200,
      10_000,
    );
    const usage = await key.get('/v1/usage');
    expect(usage.body.budget).toMatchObject({ currency: 'USD', spent: 0, unpriced: 1 });
  });
});

describe("a budget's currency", () => {
  test('changed from USD (0.5 spent) to 1 CNY: a new budget from zero in CNY, and a 0.98 CNY task fits', async () => {
    const key = await makeKey('currency', { budget: { amount: 1, currency: 'USD', period: 'total' } });
    const paid = await key.post('/v1/async/videos/generations', {
      model: KLING,
      prompt: `money currency ${RUN} [sim:duration=300]`,
      duration: 5,
    });
    expect(paid.status).toBe(200);
    await until(
      'the USD task is settled',
      async () => (await key.get('/v1/usage')).body.budget.spent === 0.5 && (await key.get('/v1/usage')).body.data[0]?.running === 0,
      60_000,
    );

    expect((await admin('PATCH', `/admin/v1/keys/${key.id}`, { budget: { amount: 1, currency: 'CNY', period: 'total' } })).status).toBe(
      200,
    );
    await until('the budget change reaches the API', async () => (await key.get('/v1/usage')).body.budget.currency === 'CNY', 10_000);
    const usage = await key.get('/v1/usage');
    expect(usage.body.budget).toMatchObject({ amount: 1, currency: 'CNY', spent: 0, remaining: 1 });
    // The USD spend stays in usage, under its own currency.
    expect(usage.body.data).toEqual([expect.objectContaining({ model: KLING, cost: { USD: 0.5 } })]);
    const cny = await key.post('/v1/async/videos/generations', { ...V20, prompt: `money cny ${RUN} [sim:duration=300]` });
    expect(cny.status).toBe(200);
    expect((await key.get('/v1/usage')).body.budget).toMatchObject({ currency: 'CNY', spent: 0.98 });
    // And the next one does not fit.
    const over = await key.post('/v1/async/videos/generations', { ...V20, prompt: `money cny over ${RUN}` });
    expect([over.status, over.body.error.code, over.body.error.budget.currency]).toEqual([402, 'budget_exceeded', 'CNY']);
  });
});

describe('a frozen Temporal server', () => {
  /** A task-creating POST with a client that gives up after two minutes (the old answer was none for 300 s). */
  async function submit(key: ApiClient, body: unknown, headers: Record<string, string> = {}) {
    const r = await fetch(`${gw.stack.apiUrl}/v1/async/videos/generations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key.key}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as any };
  }

  test('paused (SIGSTOP): a submit is answered 503 with Retry-After; resumed, the same Idempotency-Key finds its task, and the budget holds', async () => {
    const key = await makeKey('frozen', { budget: { amount: 1, currency: 'CNY', period: 'total' } });
    const body = {
      model: 'VendorQ-q2',
      action: 'text_to_video',
      prompt: `money frozen ${RUN} [sim:duration=300]`,
      duration: 2,
      resolution: '720P',
    };
    const temporal = gw.stack.temporal.process!;
    temporal.kill('SIGSTOP');
    let answers: Awaited<ReturnType<typeof submit>>[];
    try {
      answers = await Promise.all([submit(key, body, { 'Idempotency-Key': 'frozen' }), submit(key, { ...body, duration: 3 })]);
    } finally {
      temporal.kill('SIGCONT');
    }
    for (const a of answers) {
      expect([a.status, a.body.error.code, a.body.error.type]).toEqual([503, 'temporal_unavailable', 'service_unavailable_error']);
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    // Resumed: a retry under the same Idempotency-Key is the same task (the start may have reached Temporal before
    // it froze), never a second reservation of it.
    const retried = await waitFor(async () => {
      const r = await submit(key, body, { 'Idempotency-Key': 'frozen' });
      return r.status === 200 ? r : undefined;
    }, 90_000);
    expect(retried.body.task_id).toEqual(expect.any(String));
    const entries = await entriesOf(key.id);
    expect(entries.filter((e) => e.task_id === retried.body.task_id)).toHaveLength(1);
    expect(entries.length).toBeLessThanOrEqual(2);
    expect((await key.get('/v1/usage')).body.budget.spent).toBeLessThanOrEqual(1);
  });
});
