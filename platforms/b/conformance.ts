/**
 * Platform B's assumptions (platforms/b/unconfirmed.ts), checked through the B adapter the worker uses. The cheapest
 * job: one text-to-video at the shortest duration and lowest resolution of a documented (Vidu) model, VQ2 by
 * default (1 s, 540p); it serves both spending checks. The family field names (Kling, PixVerse, Hailuo) cannot be
 * read back: B ignores unknown fields (docs/platforms/b.md#creating-jobs: "对于所有无法识别的项应直接忽略") and its echo may keep them. What shows a
 * name is its effect, so each family gets one text-to-video at its lowest resolution asking a duration other than
 * the shortest and, where the model takes it, a portrait ratio: the finished video's `durationInSecond` and
 * `video.widthInPixel/heightInPixel` [3P] say whether `duration` and the aspect ratio were heard. The other names
 * stay for a person to judge from the video (the table says so).
 */
import type { ModelRecord } from '../../core/catalogue';
import type { BAccountReads } from './adapter';
import { bCallbacksEnv } from './announcements';
import { echoedRequests, echoMatches, sameRequest } from './lost-answer';
import { parseEnv } from '../../core/config';
import { UpstreamError } from '../upstream-error';
import {
  cannotCheck,
  describeRefusal,
  held,
  notHeld,
  oncePerRun,
  recorded,
  shortest,
  spendOneJob,
  submitContext,
  validated,
  type Assumption,
  type CheckResult,
  type ConformanceContext,
} from '../conformance';

const callbackSwitch: Assumption = {
  id: 'b.callback-switch',
  spends: false,
  async check(ctx) {
    const reads = ctx.adapter as Partial<BAccountReads>;
    if (!reads.readCallbackConfig) return cannotCheck('this adapter cannot read the callback configuration');
    const config = await reads.readCallbackConfig();
    const name = parseEnv(bCallbacksEnv, ctx.env).PLATFORM_B_CALLBACK_SWITCH;
    const switches = Object.keys(config).filter((k) => /^enable.+Event$/.test(k));
    if (name in config) return held(`read-only: GET /v2/callback shows \`${name}\` (${switches.length} switches)`);
    const candidates = switches.filter((k) => /video|generate|aigc/i.test(k));
    return notHeld(
      `read-only: GET /v2/callback has no \`${name}\`; its switches: ${switches.join(', ') || 'none'}${candidates.length ? `; likely: ${candidates.join(', ')}` : ''}`,
    );
  },
};

/** The cheapest B text-to-video record: VQ2 when the deployment has it, else the one with the shortest duration. */
function cheapestRecord(records: readonly ModelRecord[]): ModelRecord | undefined {
  const t2v = records.filter((r) => r.kind === 'video' && r.capabilities.includes('text_to_video'));
  return t2v.find((r) => r.id === 'VQ2') ?? [...t2v].sort((a, b) => (shortest(a.durations) ?? 99) - (shortest(b.durations) ?? 99))[0];
}

/** The cheapest job, made once per run: its record, request, submit context, the create as sent, and its id. */
const cheapJob = (ctx: ConformanceContext) => oncePerRun(ctx, 'b.cheap-job', () => makeCheapJob(ctx));

async function makeCheapJob(ctx: ConformanceContext) {
  const record = cheapestRecord(ctx.records);
  if (!record) throw new Error('no text-to-video model is offered on B');
  const { entry, request } = validated(ctx, 'video', {
    model: record.id,
    action: 'text_to_video',
    prompt: `${ctx.runId}: a paper boat on still water`,
    duration: shortest(record.durations),
    resolution: record.resolutions?.[0],
  });
  const submit = submitContext(ctx, 'cheap');
  const { result, exchanges } = await recorded(ctx, () => spendOneJob(ctx, 'cheapest B job', entry, request, submit));
  const create = exchanges.find((e) => e.method === 'POST' && /\/aigc\//.test(e.url));
  return { entry, request, submit, result, create };
}

const echoExact: Assumption = {
  id: 'b.echo-exact',
  spends: true,
  async check(ctx) {
    const job = await cheapJob(ctx);
    if ('refused' in job.result) return cannotCheck(`the cheapest job was refused: ${describeRefusal(job.result.refused)}`);
    const id = job.result.upstreamTaskId;
    const { result: found, exchanges } = await recorded(ctx, () => ctx.adapter.findSubmitted!(job.entry, job.request, job.submit));
    const detail = exchanges.find((e) => e.method === 'GET' && e.url.includes(`/v2/tasks/${id}`));
    if (!detail) return cannotCheck(`created ${id}; the task list did not show it (read through /v2/tasks), so its echo could not be read`);
    const sent = job.create?.requestBody;
    const echoes = echoedRequests(detail.response.body);
    if (echoes.some((e) => sameRequest(e, sent)))
      return held(
        `created ${id}; its detail echoes the create exactly${found?.upstreamTaskId === id ? ', and the lost-answer lookup found it' : ''}`,
      );
    const normalised = echoes.some((e) => echoMatches(e, sent));
    return notHeld(
      `created ${id}; its echo differs from the create (${normalised ? 'defaults filled in or ignored fields dropped: the normalised comparison matches' : 'even the normalised comparison does not match'}): sent ${JSON.stringify(sent).slice(0, 300)}, echoed ${JSON.stringify(echoes[0]).slice(0, 300)}`,
    );
  },
};

const v3ReadsThroughV2: Assumption = {
  id: 'b.v3-reads-through-v2',
  spends: true,
  async check(ctx) {
    const job = await cheapJob(ctx);
    if ('refused' in job.result) return cannotCheck(`the cheapest job was refused: ${describeRefusal(job.result.refused)}`);
    if (!job.create || !job.create.url.includes('/v3/'))
      return cannotCheck('the create went through /v2: set PLATFORM_B_API_KEY to check v3 (without it, nothing depends on this)');
    const id = job.result.upstreamTaskId;
    try {
      const status = await ctx.adapter.poll('video', id);
      const found = await ctx.adapter.findSubmitted!(job.entry, job.request, job.submit);
      return found?.upstreamTaskId === id
        ? held(`created ${id} through /v3; GET /v2/tasks/${id} read it (${status.state}) and the /v2 task list showed it`)
        : notHeld(
            `created ${id} through /v3; GET /v2/tasks/${id} read it, but the /v2 task list did not show it (a lost answer could not be found)`,
          );
    } catch (err) {
      if (err instanceof UpstreamError) return notHeld(`created ${id} through /v3; GET /v2/tasks/${id} answered ${describeRefusal(err)}`);
      throw err;
    }
  },
};

/** The first `sourceMetadata`-like block anywhere in a task detail: `durationInSecond` and `video` {widthInPixel, heightInPixel} [3P]. */
function outputMetadata(detail: unknown): { duration?: number; width?: number; height?: number } | undefined {
  if (Array.isArray(detail)) {
    for (const item of detail) {
      const found = outputMetadata(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof detail !== 'object' || detail === null) return undefined;
  const o = detail as Record<string, unknown>;
  if (typeof o.durationInSecond === 'number') {
    const video = (o.video ?? {}) as { widthInPixel?: unknown; heightInPixel?: unknown };
    return {
      duration: o.durationInSecond,
      ...(typeof video.widthInPixel === 'number' ? { width: video.widthInPixel } : {}),
      ...(typeof video.heightInPixel === 'number' ? { height: video.heightInPixel } : {}),
    };
  }
  return outputMetadata(Object.values(o));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls job `id` until it ends within --wait; a result when it cannot be read as finished. */
async function waitForJob(ctx: ConformanceContext, record: ModelRecord, id: string): Promise<CheckResult | undefined> {
  const deadline = Date.now() + ctx.waitMs;
  for (;;) {
    const status = await ctx.adapter.poll('video', id);
    if (status.state === 'failed') return cannotCheck(`${record.id} job ${id} failed upstream: ${status.failure?.message ?? 'no message'}`);
    if (status.state === 'success') return undefined;
    if (Date.now() > deadline)
      return cannotCheck(`${record.id} job ${id} did not finish within ${Math.round(ctx.waitMs / 1000)} s (--wait)`);
    await sleep(ctx.pollMs);
  }
}

/** What one family job asks that differs from B's defaults, so that its output shows whether each field's name was heard. */
function familyAsk(record: ModelRecord & { durations: NonNullable<ModelRecord['durations']> }): { duration: number; ratio?: '9:16' } {
  const allowed =
    'values' in record.durations ? [...record.durations.values].sort((a, b) => a - b) : [record.durations.min, record.durations.min + 1];
  // Not the shortest duration, and portrait where the model takes it: B's defaults are the shortest and 16:9 [3P].
  return { duration: allowed[1] ?? allowed[0]!, ...(record.ratios?.includes('9:16') ? { ratio: '9:16' as const } : {}) };
}

/** Which names the finished video shows were heard: the duration (`durationInSecond`) and the aspect ratio (portrait pixels). */
function heardFields(
  ask: { duration: number; ratio?: string },
  out: { duration?: number; width?: number; height?: number },
): { heard: string[]; ignored: string[]; unread: string[] } {
  const verdict = { heard: [] as string[], ignored: [] as string[], unread: [] as string[] };
  verdict[Math.round(out.duration!) === ask.duration ? 'heard' : 'ignored'].push(
    `duration (asked ${ask.duration} s, made ${out.duration} s)`,
  );
  if (ask.ratio) {
    if (out.width === undefined || out.height === undefined) verdict.unread.push('aspect ratio (no widthInPixel/heightInPixel to compare)');
    else verdict[out.height > out.width ? 'heard' : 'ignored'].push(`aspect ratio (asked ${ask.ratio}, made ${out.width}x${out.height})`);
  }
  return verdict;
}

/**
 * One family's TaskInput names, by what its finished video shows: the duration (not the shortest) and, where the
 * model takes it, a portrait aspect ratio. One job settles both names; the others stay for a person to judge.
 */
function familyFields(family: 'kling' | 'pixverse' | 'hailuo'): Assumption {
  return {
    id: `b.${family}-fields`,
    spends: true,
    async check(ctx) {
      const record = ctx.records.find(
        (r) =>
          r.kind === 'video' &&
          r.capabilities.includes('text_to_video') &&
          (r.extras as { family?: string } | undefined)?.family === family,
      );
      if (!record?.durations) return cannotCheck(`no ${family} text-to-video model is offered`);
      const ask = familyAsk({ ...record, durations: record.durations });
      const { entry, request } = validated(ctx, 'video', {
        model: record.id,
        action: 'text_to_video',
        prompt: `${ctx.runId}: a clock ticking`,
        ...ask,
        resolution: record.resolutions?.[0],
      });
      const result = await spendOneJob(
        ctx,
        `${family} ${ask.duration} s${ask.ratio ? ` ${ask.ratio}` : ''}`,
        entry,
        request,
        submitContext(ctx, `${family}-fields`),
      );
      if ('refused' in result) return notHeld(`a ${record.id} create was refused: ${describeRefusal(result.refused)}`);
      const id = result.upstreamTaskId;
      const unfinished = await waitForJob(ctx, record, id);
      if (unfinished) return unfinished;
      const detail = [...ctx.http.exchanges].reverse().find((e) => e.method === 'GET' && e.url.includes(`/tasks/${id}`));
      const out = outputMetadata(detail?.response.body);
      if (out?.duration === undefined) return cannotCheck(`${record.id} job ${id} finished without a durationInSecond to compare`);
      const { heard, ignored, unread } = heardFields(ask, out);
      const rest = `${unread.length ? `; not readable: ${unread.join(', ')}` : ''}; the other names are not settled by this job`;
      return ignored.length === 0
        ? held(`${record.id} job ${id}: heard ${heard.join(', ')}${rest}`)
        : notHeld(`${record.id} job ${id}: B ignored ${ignored.join(', ')}${heard.length ? `; heard ${heard.join(', ')}` : ''}${rest}`);
    },
  };
}

export const B_ASSUMPTIONS: readonly Assumption[] = [
  callbackSwitch,
  echoExact,
  v3ReadsThroughV2,
  familyFields('kling'),
  familyFields('pixverse'),
  familyFields('hailuo'),
];
