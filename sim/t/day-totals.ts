/**
 * DescribeAigcUsageData (https://cloud.tencent.com/document/api/266/126446; English
 * https://www.tencentcloud.com/document/api/266/78365): the SubAppId's AIGC usage between StartTime and EndTime
 * (inclusive, "需大于等于起始日期"), of one AigcType, as AigcUsageDataSet [{Specification, DataSet: [{Time, Count,
 * Usage}]}]. "可以查询最近365天内的AIGC统计数据", "查询时间跨度不超过90天", and "查询时间跨度超过1天的,返回以天为粒度的数据,否则,
 * 返回以5分钟为粒度的数据"; a day interval's Time is its start in UTC+8 ("2018-12-01T00:00:00+08:00 表示2018年12月1日（含）到
 * 2018年12月2日（不含）区间").
 *
 * Computed from the simulator's own jobs of the SubAppId. GUESS (no page says): only succeeded tasks count (the usage
 * of generated output), a task counts in the interval it was created in, Usage is seconds of video for Video and
 * images for Image, the Specification is the job's model as T names it, and only intervals with a task are listed
 * (the page's example also shows zero rows). Text, Audio and the scene types have no simulated tasks: an empty set.
 */
import type { Context } from 'koa';
import type { SimJob } from '../jobs';
import { invalidValue, missingParameter } from './errors';
import type { TActionDeps } from './operations';
import { checkShape, DESCRIBE_AIGC_USAGE_DATA } from './request-shape';
import { tMeta } from './tasks';
import { checkSubAppId } from './validation';

const DAY_MS = 86_400_000;
const FIVE_MINUTES_MS = 300_000;
const UTC8_MS = 8 * 3600_000;
const AIGC_TYPES = ['Video', 'Image', 'Text', 'Audio', 'SceneAigcVideo', 'SceneAigcImage', 'SceneAigcTime', 'TextDetail'];
const KIND_OF: Readonly<Record<string, SimJob['kind']>> = { Video: 'video', Image: 'image' };

/** `2025-11-18T00:00:00+08:00`: the interval's start as T writes it. */
function utc8(ms: number): string {
  return `${new Date(ms + UTC8_MS).toISOString().slice(0, 19)}+08:00`;
}

function timeOf(body: Record<string, unknown>, name: string): number {
  if (body[name] === undefined) throw missingParameter(name);
  const t = Date.parse(body[name] as string);
  if (Number.isNaN(t)) throw invalidValue(name, 'must be an ISO 8601 date');
  return t;
}

/** The checked range and type. */
function checkRange(body: Record<string, unknown>, now: number): { start: number; end: number; kind?: SimJob['kind'] } {
  const start = timeOf(body, 'StartTime');
  const end = timeOf(body, 'EndTime');
  if (body.AigcType === undefined) throw missingParameter('AigcType');
  if (!AIGC_TYPES.includes(body.AigcType as string)) throw invalidValue('AigcType', `must be one of ${AIGC_TYPES.join(', ')}`);
  if (end < start) throw invalidValue('EndTime', 'must not be earlier than StartTime');
  if (end - start > 90 * DAY_MS) throw invalidValue('EndTime', 'the query spans more than 90 days');
  if (start < now - 365 * DAY_MS) throw invalidValue('StartTime', 'only the last 365 days can be queried');
  return { start, end, kind: KIND_OF[body.AigcType as string] };
}

/** What one job adds to its interval's Usage. */
function usageOf(job: SimJob): number {
  return job.kind === 'video' ? (tMeta(job).outputSeconds ?? 0) : job.outputs;
}

/** DescribeAigcUsageData over the signing account's SubAppId. */
export function describeAigcUsageData(deps: TActionDeps, ctx: Context): Record<string, unknown> {
  const { host } = deps;
  const body = checkShape(ctx.request.body, DESCRIBE_AIGC_USAGE_DATA);
  checkSubAppId(body, deps.subAppId);
  const now = host.now();
  const { start, end, kind } = checkRange(body, now);
  const daily = end - start > DAY_MS;
  const intervalOf = (t: number) =>
    daily ? Math.floor((t + UTC8_MS) / DAY_MS) * DAY_MS - UTC8_MS : Math.floor(t / FIVE_MINUTES_MS) * FIVE_MINUTES_MS;
  // EndTime is a whole second and inclusive: a task created within that second is in the range.
  const jobs = host.jobs
    .all('T')
    .filter((j) => tMeta(j).subAppId === deps.subAppId && j.kind === kind && j.createdAt >= start && j.createdAt < end + 1000)
    .filter((j) => host.jobs.view(j, now).state === 'succeeded');
  const bySpec = new Map<string, Map<number, { Count: number; Usage: number }>>();
  for (const job of jobs) {
    const intervals = bySpec.get(job.model) ?? new Map<number, { Count: number; Usage: number }>();
    bySpec.set(job.model, intervals);
    const at = intervalOf(job.createdAt);
    const point = intervals.get(at) ?? { Count: 0, Usage: 0 };
    intervals.set(at, { Count: point.Count + 1, Usage: point.Usage + usageOf(job) });
  }
  const AigcUsageDataSet = [...bySpec].map(([Specification, intervals]) => ({
    Specification,
    DataSet: [...intervals].sort(([a], [b]) => a - b).map(([t, p]) => ({ Time: utc8(t), Count: p.Count, Usage: p.Usage })),
  }));
  return { AigcUsageDataSet };
}
