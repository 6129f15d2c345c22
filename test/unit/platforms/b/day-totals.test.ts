/**
 * platforms/b/day-totals.ts on the wire, against a fake HTTP client: reconciliation's day total is the day's postpay VOD
 * bill from Baidu AI Cloud billing's own host (GET /v1/bill/resource/month, signed with the account's AK/SK), read a
 * page of 100 rows at a time until totalCount, each page paced, its rows' list price (catalogPrice) summed to the fen.
 */
import { createPlatformB } from '../../../../platforms/b/adapter';
import { BILL_PAGE_SIZE, billQuery } from '../../../../platforms/b/day-totals';
import { bceAuthorization } from '../../../../platforms/b/signing';
import { fakeHttp } from '../../../support/platform-kit';
import { NOW, SETTINGS } from '../../../support/platforms/b';

const DAY = Date.UTC(2026, 10, 21);
const row = (catalogPrice: number | string) => ({ serviceType: 'VOD', chargeItem: 'V20', catalogPrice, financePrice: 0 });

test('day total: every page of the day’s VOD bill, signed, paced, summed to the fen in CNY', async () => {
  const pages = [Array.from({ length: BILL_PAGE_SIZE }, () => row(0.1)), [row('1.25'), row(0.63), { serviceType: 'BOS', catalogPrice: 9 }]];
  const http = fakeHttp((c) => {
    const pageNo = Number(new URL(c.url).searchParams.get('pageNo'));
    return { status: 200, body: { totalCount: BILL_PAGE_SIZE + 3, bills: pages[pageNo - 1] } };
  });
  const adapter = createPlatformB({ ...SETTINGS, billingEndpoint: 'http://127.0.0.1:8091' }, { http, now: () => NOW });
  let paced = 0;
  expect(adapter.dayTotals!.quantities).toEqual(['money']);
  await expect(adapter.dayTotals!.day(DAY, async () => void paced++)).resolves.toEqual([
    { quantity: 'money', value: 11.88, currency: 'CNY' },
  ]);
  expect(paced).toBe(2);
  expect(http.calls.map((c) => c.url)).toEqual([
    'http://127.0.0.1:8091/v1/bill/resource/month?month=2026-11&beginTime=2026-11-21&endTime=2026-11-21&productType=postpay&serviceType=VOD&pageNo=1&pageSize=100',
    'http://127.0.0.1:8091/v1/bill/resource/month?month=2026-11&beginTime=2026-11-21&endTime=2026-11-21&productType=postpay&serviceType=VOD&pageNo=2&pageSize=100',
  ]);
  const [first] = http.calls;
  expect(first!.method).toBe('GET');
  expect(first!.headers!.authorization).toBe(
    bceAuthorization(
      {
        method: 'GET',
        path: '/v1/bill/resource/month',
        query: billQuery('2026-11-21', 1),
        headers: { host: '127.0.0.1:8091', 'x-bce-date': '2026-11-22T09:30:05Z' },
      },
      SETTINGS,
      { timestamp: '2026-11-22T09:30:05Z' },
    ),
  );
});

test('without a billing endpoint the bill is read from https://billing.baidubce.com; an empty day is 0', async () => {
  const http = fakeHttp(() => ({ status: 200, body: { totalCount: 0, bills: [] } }));
  const totals = createPlatformB(SETTINGS, { http, now: () => NOW }).dayTotals!;
  await expect(totals.day(DAY, async () => {})).resolves.toEqual([{ quantity: 'money', value: 0, currency: 'CNY' }]);
  expect(new URL(http.calls[0]!.url).origin).toBe('https://billing.baidubce.com');
});

test('a refused bill is the classified error, not a total of 0', async () => {
  const http = fakeHttp(() => ({ status: 403, body: { code: 'AccessDenied', message: 'Access denied.' } }));
  await expect(createPlatformB(SETTINGS, { http, now: () => NOW }).dayTotals!.day(DAY, async () => {})).rejects.toThrow(/AccessDenied/);
});

test('without totalCount, pages are read until a short one', async () => {
  const pages = [Array.from({ length: BILL_PAGE_SIZE }, () => row(0.01)), [row(0.5)]];
  const http = fakeHttp((c) => ({ status: 200, body: { bills: pages[Number(new URL(c.url).searchParams.get('pageNo')) - 1] } }));
  await expect(createPlatformB(SETTINGS, { http, now: () => NOW }).dayTotals!.day(DAY, async () => {})).resolves.toEqual([
    { quantity: 'money', value: 1.5, currency: 'CNY' },
  ]);
  expect(http.calls).toHaveLength(2);
});
