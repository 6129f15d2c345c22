/**
 * Platform V's assumptions (platforms/v/unconfirmed.ts), checked through the V adapter the worker uses. The
 * endpoint check needs a model the models file routes through an endpoint (`"upstream": {"model": "ep-…"}`); its
 * job is the shortest duration at the lowest resolution. 2.0's first/last frame and reference counts are not
 * checked here (docs/operations.md, "Conformance run").
 */
import { isEndpointId } from '../../platforms/v/lost-answer';
import { cannotCheck, describeRefusal, held, notHeld, recorded, shortest, spendOneJob, submitContext, validated, type Assumption } from './framework';

const endpointListedModel: Assumption = {
  id: 'v.endpoint-listed-model',
  spends: true,
  async check(ctx) {
    const record = ctx.records.find((r) => r.kind === 'video' && isEndpointId(r.upstream.model ?? '') && r.capabilities.includes('text_to_video'));
    if (!record) return cannotCheck('no text-to-video model of PLATFORM_V_MODELS_FILE names an endpoint (ep-…): nothing here depends on it');
    const endpoint = record.upstream.model!;
    const { entry, request } = validated(ctx, 'video', {
      model: record.id,
      action: 'text_to_video',
      prompt: `${ctx.runId}: a leaf falling`,
      duration: shortest(record.durations),
      resolution: record.resolutions?.[0],
    });
    const submit = submitContext(ctx, 'endpoint');
    const result = await spendOneJob(ctx, `job through ${endpoint}`, entry, request, submit);
    if ('refused' in result) return cannotCheck(`the job through ${endpoint} was refused: ${describeRefusal(result.refused)}`);
    const { result: found, exchanges } = await recorded(ctx, () => ctx.adapter.findSubmitted!(entry, request, submit));
    const listed = exchanges
      .flatMap((e) => ((e.response.body as { items?: { id?: string; model?: string }[] } | undefined)?.items ?? []))
      .find((t) => t.id === result.upstreamTaskId);
    if (!listed) return cannotCheck(`created ${result.upstreamTaskId} through ${endpoint}; the task list did not show it`);
    const recovered = found?.upstreamTaskId === result.upstreamTaskId ? '; the lost-answer lookup found it' : '; the lost-answer lookup did NOT find it';
    return listed.model === endpoint
      ? held(`created ${result.upstreamTaskId} through ${endpoint}; the list shows model ${listed.model}${recovered}`)
      : notHeld(`created ${result.upstreamTaskId} through ${endpoint}; the list shows model ${listed.model ?? '(none)'}, not the endpoint id${recovered}`);
  },
};

export const V_ASSUMPTIONS: readonly Assumption[] = [endpointListedModel];
