/**
 * sim/b/day-totals.ts, over real HTTP: GetResourceMonthBill computed from the simulator's own jobs of the account — only
 * succeeded clips, at the VOD page's list price, another account's never — paged, and its documented refusals
 * (productType required, no day range across months, no day not yet over unless /_sim/b/behaviour billsToday).
 */
import { simBAccount } from '../../../../sim/accounts';
import { call, createI2V, finished, IMG, signedBy, sim_, useBSimulator } from '../../../support/sim/b';

useBSimulator();

const today = () => new Date().toISOString().slice(0, 10);
const bill = (query: Array<[string, string]>, o = {}) => call('GET', '/v1/bill/resource/month', query, undefined, o);
const day = (d: string, extra: Array<[string, string]> = []): Array<[string, string]> => [
  ['beginTime', d],
  ['endTime', d],
  ['productType', 'postpay'],
  ...extra,
];
const v20 = (prompt: string, resolution = '720P') => createI2V('V20', { prompt, image: IMG, duration: 4, resolution });

test("today's bill is refused as B refuses it, and served as it stands with billsToday: succeeded clips at list price", async () => {
  const ok = (await v20('one')).body.taskId;
  const cheap = (await v20('two', '360P')).body.taskId;
  const failed = (await v20('three [sim:fail=content_policy]')).body.taskId;
  const other = simBAccount('other');
  const theirs = (
    await call('POST', '/v2/aigc/image_to_video', [], { model: 'V20', modelV20TaskInput: { image: IMG, duration: 4 } }, signedBy(other))
  ).body;
  expect(theirs.taskId).toEqual(expect.any(String));
  await Promise.all([finished(ok), finished(cheap), finished(failed)]);

  const refused = await bill(day(today()));
  expect([refused.status, refused.body.code]).toEqual([400, 'InvalidParameter']);

  await sim_.post('/_sim/b/behaviour', { billsToday: true });
  const served = await bill(
    day(today(), [
      ['serviceType', 'VOD'],
      ['pageSize', '100'],
    ]),
  );
  expect(served.status).toBe(200);
  expect(served.body).toMatchObject({ billMonth: today().slice(0, 7), beginTime: today(), endTime: today(), pageNo: 1, totalCount: 1 });
  expect(served.body.bills).toEqual([
    expect.objectContaining({ serviceType: 'VOD', productType: 'postpay', chargeItem: 'V20', amount: '2', catalogPrice: 1.88 }),
  ]);
  // Prepaid, or another product: nothing of VOD's AIGC.
  expect((await bill(day(today(), [['serviceType', 'BOS']]))).body.bills).toEqual([]);
  expect(
    (
      await bill([
        ['beginTime', today()],
        ['endTime', today()],
        ['productType', 'prepay'],
      ])
    ).body.bills,
  ).toEqual([]);
});

test('refusals: no productType, a range across months, a page size over 100, no period at all', async () => {
  const code = async (q: Array<[string, string]>) => {
    const r = await bill(q);
    return `${r.status} ${r.body.code}`;
  };
  expect(await code([['month', '2026-01']])).toBe('400 InvalidParameter');
  expect(
    await code([
      ['beginTime', '2026-01-31'],
      ['endTime', '2026-02-01'],
      ['productType', 'postpay'],
    ]),
  ).toBe('400 InvalidParameter');
  expect(
    await code([
      ['month', '2026-01'],
      ['productType', 'postpay'],
      ['pageSize', '101'],
    ]),
  ).toBe('400 InvalidParameter');
  expect(await code([['productType', 'postpay']])).toBe('400 InvalidParameter');
  const past = await bill([
    ['month', '2026-01'],
    ['productType', 'postpay'],
  ]);
  expect([past.status, past.body.totalCount]).toEqual([200, 0]);
});

test('the bill is signed like every B call: an anonymous request is 403 AccessDenied, a bad signature refused', async () => {
  const anonymous = await bill(
    [
      ['month', '2026-01'],
      ['productType', 'postpay'],
    ],
    { auth: 'none' },
  );
  expect([anonymous.status, anonymous.body.code]).toEqual([403, 'AccessDenied']);
  const forged = await bill(
    [
      ['month', '2026-01'],
      ['productType', 'postpay'],
    ],
    { sk: 'not-the-secret' },
  );
  expect(forged.status).toBeGreaterThanOrEqual(400);
  expect(forged.body.bills).toBeUndefined();
});
