/**
 * Baidu AI Cloud billing's GetResourceMonthBill (https://cloud.baidu.com/doc/Finance/s/cjxedqyml; the row model
 * ResourceMonthInstanceBill https://cloud.baidu.com/doc/Finance/s/Bjxg02xim), as the simulator's B accounts' bill:
 *
 *   GET /v1/bill/resource/month?month=&beginTime=&endTime=&granularity=&productType=&serviceType=&pageNo=&pageSize=
 *     → {billMonth, beginTime, endTime, accountId, loginName, pageNo, pageSize, totalCount, bills: [row…]}
 *
 * Signed with the account's AK/SK (bce-auth-v1), as every B call. productType is required (prepay | postpay);
 * a day range (beginTime, endTime, yyyy-MM-dd) "不支持跨月" and may reach only the days before today ("按天查询可以查询本月
 * 今天之前的账单"); month (yyyy-MM) alone is the whole month up to yesterday; pageSize at most 100 ("最多一次查询100条").
 * With granularity=day a row per day, otherwise one per charge item over the range ("多天账单会汇总为一条").
 *
 * Computed from the simulator's own B jobs of the account. GUESS (no page says): AIGC generation is postpay under
 * serviceType VOD, one charge item per model code, only succeeded tasks are billed, a task is billed on the UTC day
 * it was created, the money fields are JSON numbers and the row's catalogPrice is the clip's list price from VOD's
 * "视频生成计费项" page (https://cloud.baidu.com/doc/VOD/s/dm64ry4hl), no discount or voucher applied; a clip the page
 * gives no price for is billed 0. Refusals are 400 InvalidParameter. `/_sim/b/behaviour {billsToday: true}` serves
 * the running day's bill as it stands (a test reconciling today).
 */
import type { Context } from 'koa';
import type { SimJob } from '../jobs';
import { simBAccountOfAccessKey } from '../accounts';
import { BError, invalidParameter, sendJson } from './errors';
import { admit, ownerOf, refuse, type BDeps } from './operations';
import { bMeta } from './tasks';
import type { VideoOutput } from './validation';

const DAY_MS = 86_400_000;
const SERVICE_TYPE = 'VOD';
const MAX_PAGE_SIZE = 100;

/** The page's clip prices (CNY): model code → `<seconds>s <resolution>` → list price. */
const CLIP_PRICES: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  VQ1: { '5s 1080p': 2.5 },
  VQ1C: { '5s 1080p': 2.5 },
  V20: { '4s 360p': 0.63, '4s 720p': 1.25 },
};

/** A clip's list price in fen (0 where the page gives none). */
function priceFen(job: SimJob): number {
  const out = bMeta(job).output as VideoOutput;
  const price = CLIP_PRICES[job.model]?.[`${out.durationInSecond}s ${String(out.resolution).toLowerCase()}`] ?? 0;
  return Math.round(price * 100);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MONTH = /^\d{4}-\d{2}$/;

/** The query's range [from, to) in ms, checked as the page states. Throws BError. */
export function billRange(q: Record<string, unknown>, now: number, billsToday: boolean): { from: number; to: number } {
  const str = (k: string) => (typeof q[k] === 'string' && q[k] !== '' ? (q[k] as string) : undefined);
  const [month, begin, end] = [str('month'), str('beginTime'), str('endTime')];
  if (month !== undefined && !MONTH.test(month)) throw invalidParameter('month must be yyyy-MM');
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const limit = billsToday ? today + DAY_MS : today;
  if (begin !== undefined || end !== undefined) {
    if (begin === undefined || end === undefined || !DATE.test(begin) || !DATE.test(end))
      throw invalidParameter('beginTime and endTime must both be yyyy-MM-dd');
    if (begin.slice(0, 7) !== end.slice(0, 7) || (month !== undefined && month !== begin.slice(0, 7)))
      throw invalidParameter('a day range must lie within one month');
    const from = Date.parse(`${begin}T00:00:00Z`);
    const to = Date.parse(`${end}T00:00:00Z`) + DAY_MS;
    if (to <= from) throw invalidParameter('endTime must not be before beginTime');
    if (to > limit) throw invalidParameter('a day range may reach only the days before today');
    return { from, to };
  }
  if (month === undefined) throw invalidParameter('month, or beginTime and endTime, is required');
  const from = Date.parse(`${month}-01T00:00:00Z`);
  const next = new Date(from);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { from, to: Math.min(next.getTime(), limit) };
}

function pageOf(q: Record<string, unknown>): { pageNo: number; pageSize: number } {
  const pageNo = q.pageNo === undefined ? 1 : Number(q.pageNo);
  const pageSize = q.pageSize === undefined ? 20 : Number(q.pageSize);
  if (!Number.isInteger(pageNo) || pageNo < 1) throw invalidParameter('pageNo must be an integer from 1');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw invalidParameter('pageSize must be 1 to 100');
  return { pageNo, pageSize };
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The account's billed clips in [from, to), as rows: per model, and per day with granularity=day. */
function billRows(deps: BDeps, accountId: string, accessKeyId: string, range: { from: number; to: number }, daily: boolean) {
  const { host } = deps;
  const now = host.now();
  const rows = new Map<string, { model: string; start: number; end: number; clips: number; fen: number }>();
  for (const job of host.jobs.all('B')) {
    if (ownerOf(job) !== accessKeyId || bMeta(job).endpoint === 'image') continue;
    if (job.createdAt < range.from || job.createdAt >= range.to || host.jobs.view(job, now).state !== 'succeeded') continue;
    const start = daily ? Math.floor(job.createdAt / DAY_MS) * DAY_MS : range.from;
    const key = `${job.model} ${start}`;
    const row = rows.get(key) ?? { model: job.model, start, end: daily ? start + DAY_MS : range.to, clips: 0, fen: 0 };
    rows.set(key, { ...row, clips: row.clips + 1, fen: row.fen + priceFen(job) });
  }
  return [...rows.values()]
    .sort((a, b) => a.start - b.start || a.model.localeCompare(b.model))
    .map((r) => {
      const money = r.fen / 100;
      return {
        vendor: '百度智能云',
        accountId,
        serviceType: SERVICE_TYPE,
        serviceTypeName: '音视频点播',
        productType: 'postpay',
        region: 'global',
        instanceId: '',
        startTime: utc(r.start),
        endTime: utc(r.end),
        chargeItem: r.model,
        chargeItemDesc: r.model,
        amount: String(r.clips),
        amountUnit: '个',
        catalogPrice: money,
        originPrice: money,
        financePrice: money,
        cash: money,
      };
    });
}

/** GET /v1/bill/resource/month. */
export function resourceMonthBill(deps: BDeps, ctx: Context): void {
  deps.host.stats.B.lists++;
  // "如果请求中没有用户验证信息(即匿名访问),返回403 Forbidden,错误信息:AccessDenied" (the billing page's own words).
  if (!ctx.get('Authorization')) {
    refuse(deps, ctx, new BError(403, 'AccessDenied', 'Access denied.'));
    return;
  }
  const account = admit(deps, ctx, 'list', 'v2');
  if (!account) return;
  try {
    const q = ctx.query as Record<string, unknown>;
    if (q.productType !== 'prepay' && q.productType !== 'postpay') throw invalidParameter('productType must be prepay or postpay');
    const range = billRange(q, deps.host.now(), deps.state.behaviour.billsToday);
    const { pageNo, pageSize } = pageOf(q);
    const userId = simBAccountOfAccessKey(account.accessKeyId)?.userId ?? '';
    const all =
      q.productType === 'postpay' && (q.serviceType === undefined || q.serviceType === SERVICE_TYPE)
        ? billRows(deps, userId, account.accessKeyId, range, q.granularity === 'day')
        : [];
    sendJson(ctx, {
      billMonth: new Date(range.from).toISOString().slice(0, 7),
      beginTime: new Date(range.from).toISOString().slice(0, 10),
      endTime: new Date(range.to - DAY_MS).toISOString().slice(0, 10),
      accountId: userId,
      loginName: account.accessKeyId,
      pageNo,
      pageSize,
      totalCount: all.length,
      bills: all.slice((pageNo - 1) * pageSize, pageNo * pageSize),
    });
  } catch (err) {
    refuse(deps, ctx, err);
  }
}
