/**
 * Platform B's day totals for reconciliation (docs/platforms/b.md#reconciliation): Baidu AI Cloud billing's
 * GetResourceMonthBill (https://cloud.baidu.com/doc/Finance/s/cjxedqyml; its fields
 * https://cloud.baidu.com/doc/Finance/s/Bjxg02xim), `GET https://billing.baidubce.com/v1/bill/resource/month`, signed
 * with the account's own AK/SK (bce-auth-v1, like VOD's calls). Asked by day (beginTime = endTime = the day; "按天查询
 * 时间区间不支持跨月"; month too, as the official Go SDK always sends it), postpay, serviceType VOD, 100 rows a page
 * (the most it answers).
 *
 * The bill names resources and charge items, never tasks: what it proves is money. The day total is the sum of the
 * rows' `catalogPrice` ("原价", the list price before discounts and vouchers), which the ledger's billed amount (the
 * gateway's list prices) is compared with. Unconfirmed (unconfirmed.ts `b.bill-vod-day`): that VOD's AIGC charges
 * are billed under serviceType `VOD`, and that a day range is the UTC day. A day's bill is complete "当日十点后"
 * (after 10:00 the next day): the daily run reads the previous day at 04:30 UTC (12:30 in Beijing).
 */
import type { PlatformDayTotals } from '../platform';

/** Baidu AI Cloud billing's one host (the bill covers every region). */
export const BILLING_ENDPOINT = 'https://billing.baidubce.com';
export const BILL_PATH = '/v1/bill/resource/month';
/** The product code the bill is filtered on (fact `b.bill-vod-day`). */
export const VOD_SERVICE_TYPE = 'VOD';
/** "最多一次查询100条账单数据". */
export const BILL_PAGE_SIZE = 100;

/** One row of the bill, as far as it is read (ResourceMonthInstanceBill: the money fields are JSON numbers). */
interface BillRow {
  serviceType?: string;
  catalogPrice?: number | string;
}

/** The page's answer (the official Go SDK's BillingResponse). */
export interface BillPage {
  totalCount?: number;
  bills?: BillRow[];
}

/** The query of one page of a day's VOD bill. */
export function billQuery(day: string, pageNo: number): [string, string][] {
  return [
    ['month', day.slice(0, 7)],
    ['beginTime', day],
    ['endTime', day],
    ['productType', 'postpay'],
    ['serviceType', VOD_SERVICE_TYPE],
    ['pageNo', String(pageNo)],
    ['pageSize', String(BILL_PAGE_SIZE)],
  ];
}

/** The rows' list price in fen, summed exactly (the bill states money to the fen). */
function fenOf(rows: readonly BillRow[]): number {
  return rows
    .filter((r) => r.serviceType === undefined || r.serviceType === VOD_SERVICE_TYPE)
    .reduce((n, r) => n + Math.round(Number(r.catalogPrice ?? 0) * 100), 0);
}

/** B's day totals of an account: its VOD bill's list price, every page. */
export function bDayTotals(get: (path: string, query: [string, string][]) => Promise<unknown>): PlatformDayTotals {
  return {
    source: 'B resource bill (GetResourceMonthBill, VOD, list price)',
    quantities: ['money'],
    async day(from, pace) {
      const day = new Date(from).toISOString().slice(0, 10);
      let fen = 0;
      let read = 0;
      for (let pageNo = 1; ; pageNo++) {
        await pace();
        const page = ((await get(BILL_PATH, billQuery(day, pageNo))) ?? {}) as BillPage;
        const rows = page.bills ?? [];
        fen += fenOf(rows);
        read += rows.length;
        // A short page is the last; so is the page that reaches totalCount (a full last page is not read twice).
        if (rows.length < BILL_PAGE_SIZE || (page.totalCount !== undefined && read >= page.totalCount)) break;
      }
      // The bill is in CNY: Baidu AI Cloud's China site bills in yuan.
      return [{ quantity: 'money', value: fen / 100, currency: 'CNY' }];
    },
  };
}
