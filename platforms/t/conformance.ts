/**
 * Platform T's assumptions (platforms/t/unconfirmed.ts, models.ts), checked through the T adapter the worker uses.
 * The cheapest job is one Hunyuan 3.0 image (VendorY-3.0, T's default size); Kling's sound takes a 5 s 720P video.
 */
import type { TModelRecord } from './models';
import {
  cannotCheck,
  describeRefusal,
  held,
  notHeld,
  oncePerRun,
  recorded,
  recordOf,
  spendOneJob,
  submitContext,
  validated,
  type Assumption,
  type ConformanceContext,
  type Exchange,
} from '../conformance';

const AIGC_TYPES = new Set(['AigcVideoTask', 'AigcImageTask']);
const DESCRIBE_WINDOW_MS = 71 * 3600_000;

/** The AIGC tasks DescribeTasks listed in `exchanges`. */
function listedAigcTasks(exchanges: readonly Exchange[]): { TaskId?: string; TaskType?: string }[] {
  return exchanges.flatMap((e) => {
    if (e.requestHeaders['x-tc-action'] !== 'DescribeTasks') return [];
    const set = ((e.response.body as { Response?: { TaskSet?: unknown[] } } | undefined)?.Response?.TaskSet ?? []) as {
      TaskId?: string;
      TaskType?: string;
    }[];
    return set.filter((t) => t.TaskType !== undefined && AIGC_TYPES.has(t.TaskType));
  });
}

/** The cheapest T job, made once per run and shared by the checks that need a job of their own. */
const cheapJob = (ctx: ConformanceContext) => oncePerRun(ctx, 't.cheap-job', () => makeCheapJob(ctx));

async function makeCheapJob(ctx: ConformanceContext) {
  if (!recordOf(ctx, 'image', 'VendorY-3.0')) throw new Error('VendorY-3.0 is withdrawn by the models file: no cheap job to check with');
  const { entry, request } = validated(ctx, 'image', { model: 'VendorY-3.0', prompt: `${ctx.runId}: a small grey pebble on white` });
  const submit = submitContext(ctx, 'cheap');
  const result = await spendOneJob(ctx, 'cheapest T job', entry, request, submit);
  return { entry, request, submit, result };
}

const describeTasksListsAigc: Assumption = {
  id: 't.describe-tasks-lists-aigc',
  spends: true,
  async check(ctx) {
    // Read-only first: any AIGC task of the last 72 h settles it without a job.
    const { entry, request } = validated(ctx, 'image', { model: 'VendorY-3.0', prompt: 'read-only lookup' });
    const probe = submitContext(ctx, 'probe');
    const { exchanges } = await recorded(ctx, () =>
      ctx.adapter.findSubmitted!(entry, request, { ...probe, since: Date.now() - DESCRIBE_WINDOW_MS }),
    );
    const seen = listedAigcTasks(exchanges);
    if (seen.length > 0)
      return held(
        `read-only: DescribeTasks over the last 71 h listed ${seen.length} AIGC task(s) (${[...new Set(seen.map((t) => t.TaskType))].join(', ')})`,
      );
    // None listed: the account may have none, or the list may not show them. A job of ours settles it.
    const job = await cheapJob(ctx);
    if ('refused' in job.result) return cannotCheck(`the cheapest job was refused: ${describeRefusal(job.result.refused)}`);
    const found = await ctx.adapter.findSubmitted!(job.entry, job.request, job.submit);
    return found?.upstreamTaskId === job.result.upstreamTaskId
      ? held(
          `created ${job.result.upstreamTaskId} (SessionId ${job.submit.dedupKey}); DescribeTasks listed it and the lost-answer lookup found it`,
        )
      : notHeld(
          `created ${job.result.upstreamTaskId} (SessionId ${job.submit.dedupKey}); the lost-answer lookup (DescribeTasks) did not find it${found ? ` (found ${found.upstreamTaskId} instead)` : ''}`,
        );
  },
};

const sessionIdRepeatCode: Assumption = {
  id: 't.session-id-repeat-code',
  spends: true,
  async check(ctx) {
    const job = await cheapJob(ctx);
    if ('refused' in job.result) return cannotCheck(`the cheapest job was refused: ${describeRefusal(job.result.refused)}`);
    // The same create again, same SessionId: T should refuse it. Budgeted as a job, in case T makes one.
    const again = await spendOneJob(ctx, 'repeated SessionId', job.entry, job.request, job.submit);
    if (!('refused' in again))
      return notHeld(`a second create with SessionId ${job.submit.dedupKey} made a second job, ${again.upstreamTaskId}`);
    const code = again.refused.opts.code;
    return code === 'InvalidParameterValue.SessionId'
      ? held(`a second create with SessionId ${job.submit.dedupKey} was refused with ${code}`)
      : notHeld(
          `a second create with SessionId ${job.submit.dedupKey} was refused with ${code ?? `HTTP ${again.refused.opts.httpStatus}`}, not InvalidParameterValue.SessionId (no second job)`,
        );
  },
};

/** Kling `version` with sound: the code's record (the models file may have turned sound off), 5 s at 720P. */
function klingSound(version: '2.1' | '2.5'): Assumption {
  return {
    id: `t.kling-${version}-sound`,
    spends: true,
    async check(ctx) {
      // The code's records: the platform's models without the deployment's models file.
      const defaults = ctx.platform.models({}) as TModelRecord[];
      const own = recordOf(ctx, 'video', `VendorK-${version}`);
      if (!own) return cannotCheck(`VendorK-${version} is withdrawn by the models file`);
      // The deployment's upstream names, with the code's capabilities: the check asks T, not our records.
      const records = defaults.map((r) => (r.kind === 'video' && r.id === own.id ? { ...r, upstream: own.upstream } : r));
      const { entry, request } = validated(
        ctx,
        'video',
        {
          model: own.id,
          action: 'text_to_video',
          prompt: `${ctx.runId}: a bell ringing once`,
          duration: 5,
          resolution: '720P',
          generate_audio: true,
        },
        records,
      );
      const result = await spendOneJob(ctx, `Kling ${version} with sound`, entry, request, submitContext(ctx, `kling-${version}-sound`));
      if (!('refused' in result))
        return held(
          `a 5 s 720P Kling ${version} job with AudioGeneration=Enabled was accepted: ${result.upstreamTaskId} (listen to its result to be sure)`,
        );
      const r = result.refused;
      return /InvalidParameter/.test(r.opts.code ?? '') && /Audio/i.test(r.message)
        ? notHeld(`AudioGeneration=Enabled on Kling ${version} was refused: ${describeRefusal(r)}`)
        : cannotCheck(`the job was refused for another reason: ${describeRefusal(r)}`);
    },
  };
}

export const T_ASSUMPTIONS: readonly Assumption[] = [describeTasksListsAigc, sessionIdRepeatCode, klingSound('2.1'), klingSound('2.5')];
