/**
 * Platform T's day totals for reconciliation (docs/platforms/t.md#reconciliation): VOD's DescribeAigcUsageData
 * (https://cloud.tencent.com/document/api/266/126446, English https://www.tencentcloud.com/document/api/266/78365),
 * the SubAppId's AIGC usage by AigcType, per Specification, as TaskStatDataItem {Time, Count, Usage}. The last 365
 * days, at most 90 days a query; "查询时间跨度超过1天的,返回以天为粒度的数据,否则,返回以5分钟为粒度的数据": a span of
 * more than a day is answered in days of UTC+8 (the example's `2018-12-01T00:00:00+08:00`), so a UTC day is asked
 * as 00:00:00Z…23:59:59Z — under a day, answered in 5-minute intervals, which tile the UTC day exactly.
 *
 * Read: Video (Usage as seconds of video) and Image (Usage as images); no page or SDK comment states either unit,
 * nor whether failed tasks are counted (fact `t.aigc-usage-units`, unconfirmed.ts).
 */
import type { PlatformDayTotal, PlatformDayTotals, TotalQuantity } from '../platform';
import type { TCall } from './request-body';
import type { DescribeAigcUsageDataResponse } from './wire-types';

const DAY_MS = 86_400_000;

/** The AigcTypes read, and the quantity each one's Usage is taken for. */
export const T_USAGE_TYPES: readonly { aigcType: 'Video' | 'Image'; quantity: TotalQuantity }[] = [
  { aigcType: 'Video', quantity: 'video_seconds' },
  { aigcType: 'Image', quantity: 'images' },
];

/** `2026-11-28T00:00:00Z`: T's ISO 8601 date format, without milliseconds. */
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One AigcType's usage over the UTC day starting at `from`: 00:00:00 to 23:59:59 (EndTime is inclusive). */
export function toTUsageCall(aigcType: string, from: number, subAppId: number): TCall {
  return {
    action: 'DescribeAigcUsageData',
    body: { StartTime: iso(from), EndTime: iso(from + DAY_MS - 1000), AigcType: aigcType, SubAppId: subAppId },
  };
}

/** Sums the answer's intervals that start within the day, over every Specification. */
export function sumTUsage(res: DescribeAigcUsageDataResponse, from: number): { count: number; usage: number } {
  let count = 0;
  let usage = 0;
  for (const item of res.AigcUsageDataSet ?? []) {
    for (const point of item.DataSet ?? []) {
      const at = Date.parse(point.Time ?? '');
      if (!(at >= from && at < from + DAY_MS)) continue;
      count += point.Count ?? 0;
      usage += point.Usage ?? 0;
    }
  }
  return { count, usage };
}

/** T's day totals of a SubAppId, one DescribeAigcUsageData per AigcType. */
export function tDayTotals(call: (c: TCall) => Promise<Record<string, unknown>>, subAppId: number): PlatformDayTotals {
  return {
    source: 'T AIGC usage statistics (DescribeAigcUsageData)',
    quantities: T_USAGE_TYPES.map((t) => t.quantity),
    async day(from, pace) {
      const out: PlatformDayTotal[] = [];
      for (const { aigcType, quantity } of T_USAGE_TYPES) {
        await pace();
        const { count, usage } = sumTUsage((await call(toTUsageCall(aigcType, from, subAppId))) as DescribeAigcUsageDataResponse, from);
        out.push({ quantity, value: usage, count });
      }
      return out;
    },
  };
}
