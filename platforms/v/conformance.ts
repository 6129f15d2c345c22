/**
 * Platform V's assumptions (platforms/v/unconfirmed.ts), checked through the V adapter the worker uses. The
 * endpoint check needs a model the models file routes through an endpoint (`"upstream": {"model": "ep-…"}`); its
 * job is the shortest duration at the lowest resolution. 2.0's first/last frame and reference counts are checked
 * with media the platform can fetch (`--image-url`, `--video-url`, `--audio-url`): each sends the request the
 * gateway refuses today, validated against a copy of the record that allows it, so only the platform decides.
 */
import type { Capability, ModelRecord } from '../../core/catalogue';
import { isEndpointId } from './lost-answer';
import {
  cannotCheck,
  describeRefusal,
  held,
  notHeld,
  recordOf,
  recorded,
  shortest,
  spendOneJob,
  submitContext,
  validated,
  type Assumption,
  type CheckResult,
  type ConformanceContext,
} from '../conformance';

const endpointListedModel: Assumption = {
  id: 'v.endpoint-listed-model',
  spends: true,
  async check(ctx) {
    const record = ctx.records.find(
      (r) => r.kind === 'video' && isEndpointId(r.upstream.model ?? '') && r.capabilities.includes('text_to_video'),
    );
    if (!record)
      return cannotCheck('no text-to-video model of PLATFORM_V_MODELS_FILE names an endpoint (ep-…): nothing here depends on it');
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
      .flatMap((e) => (e.response.body as { items?: { id?: string; model?: string }[] } | undefined)?.items ?? [])
      .find((t) => t.id === result.upstreamTaskId);
    if (!listed) return cannotCheck(`created ${result.upstreamTaskId} through ${endpoint}; the task list did not show it`);
    const recovered =
      found?.upstreamTaskId === result.upstreamTaskId ? '; the lost-answer lookup found it' : '; the lost-answer lookup did NOT find it';
    return listed.model === endpoint
      ? held(`created ${result.upstreamTaskId} through ${endpoint}; the list shows model ${listed.model}${recovered}`)
      : notHeld(
          `created ${result.upstreamTaskId} through ${endpoint}; the list shows model ${listed.model ?? '(none)'}, not the endpoint id${recovered}`,
        );
  },
};

/** The cheapest shape of a job of `record`: its shortest duration at its lowest resolution. */
const cheapest = (record: ModelRecord) => ({ duration: shortest(record.durations), resolution: record.resolutions?.[0] });

/** `record` as the gateway would have it if the platform did take more: only the platform then refuses. */
function widened(ctx: ConformanceContext, record: ModelRecord, change: Partial<ModelRecord>): ModelRecord[] {
  return ctx.records.map((r) => (r === record ? { ...r, ...change } : r));
}

/** A refusal that says the request itself was wrong (what a model that cannot take it answers), not an account or outage. */
const refusedAsInvalid = (err: { opts: { reason: string } }) => err.opts.reason === 'invalid_request';

/**
 * `v.<model>-first-last-frame`: the gateway refuses `last_frame_url` for a 2.0 model. The check sends a first+last
 * frame job: refused as invalid → held; created → did not hold (the model takes it: the capability can be added).
 */
function firstLastFrame(id: string): Assumption {
  return {
    id: `v.${id.replace(/^vendor-video-|-\d{6}$/g, '')}-first-last-frame`,
    spends: true,
    async check(ctx) {
      const record = recordOf(ctx, 'video', id);
      if (!record) return cannotCheck(`${id} is withdrawn by the models file`);
      if (record.capabilities.includes('first_last_frame'))
        return cannotCheck(`the models file already gives ${id} first_last_frame: nothing here assumes otherwise`);
      const image = ctx.media.image;
      if (!image) return cannotCheck('needs an image the platform can fetch: --image-url <url>');
      const capabilities: Capability[] = [...record.capabilities, 'first_last_frame'];
      const { entry, request } = validated(
        ctx,
        'video',
        { model: id, prompt: `${ctx.runId}: a door opening`, image_url: image, last_frame_url: image, ...cheapest(record) },
        widened(ctx, record, { capabilities }),
      );
      const result = await spendOneJob(ctx, 'first+last frame', entry, request, submitContext(ctx, `flf-${id.slice(-18)}`));
      if (!('refused' in result)) return notHeld(`created ${result.upstreamTaskId} with a first and a last frame: ${id} takes them`);
      return refusedAsInvalid(result.refused)
        ? held(`a first+last frame job was refused: ${describeRefusal(result.refused)}`)
        : cannotCheck(`refused for another reason: ${describeRefusal(result.refused)}`);
    },
  };
}

/** One request of the references check: its counts, and whether the gateway assumes the model takes it. */
interface ReferenceProbe {
  images: number;
  videos: number;
  audios: number;
  fits: boolean;
}

/** What the references check sends: each count one past its assumed maximum (refusals, free), then all at it (one job). */
function referenceProbes(max: { images: number; videos: number; audios: number }): ReferenceProbe[] {
  return [
    { images: max.images + 1, videos: 1, audios: 0, fits: false },
    { images: 1, videos: max.videos + 1, audios: 0, fits: false },
    { images: 1, videos: 1, audios: max.audios + 1, fits: false },
    { ...max, fits: true },
  ];
}

const plural = (p: ReferenceProbe) => `${p.images} images, ${p.videos} videos, ${p.audios} audios`;

/** `v.2-0-references`: 2.0 takes up to 9 reference images, 3 videos and 3 audios — one past each is refused, all at once are taken. */
const references: Assumption = {
  id: 'v.2-0-references',
  spends: true,
  async check(ctx) {
    const id = 'vendor-video-2-0-260128';
    const record = recordOf(ctx, 'video', id);
    if (!record) return cannotCheck(`${id} is withdrawn by the models file`);
    const { image, video, audio } = ctx.media;
    if (!image || !video || !audio) return cannotCheck('needs media the platform can fetch: --image-url, --video-url and --audio-url');
    const extras = (record.extras ?? {}) as { maxReferenceVideos?: number; maxReferenceAudios?: number };
    const max = { images: record.maxReferenceImages ?? 9, videos: extras.maxReferenceVideos ?? 3, audios: extras.maxReferenceAudios ?? 3 };
    // The gateway's own limits opened up (to the request schema's 10), so the platform alone answers each probe.
    const records = widened(ctx, record, { maxReferenceImages: 10, extras: { ...extras, maxReferenceVideos: 10, maxReferenceAudios: 10 } });
    const seen: string[] = [];
    for (const probe of referenceProbes(max)) {
      const outcome = await sendReferences(ctx, record, records, probe, { image, video, audio });
      if (outcome) return outcome;
      seen.push(`${plural(probe)}: ${probe.fits ? 'created' : 'refused'}`);
    }
    return held(seen.join('; '));
  },
};

/** Sends one probe; undefined when the platform answered as assumed, else the check's result. */
async function sendReferences(
  ctx: ConformanceContext,
  record: ModelRecord,
  records: ModelRecord[],
  probe: ReferenceProbe,
  media: { image: string; video: string; audio: string },
): Promise<CheckResult | undefined> {
  const many = (n: number, url: string) =>
    Array.from({ length: n }, (_, i) => ({ url: `${url}${url.includes('?') ? '&' : '?'}ref=${i + 1}` }));
  const body = {
    model: record.id,
    prompt: `${ctx.runId}: the references together`,
    images: many(probe.images, media.image).map((m) => ({ ...m, role: 'reference_image' })),
    videos: many(probe.videos, media.video),
    ...(probe.audios > 0 ? { audios: many(probe.audios, media.audio) } : {}),
    ...cheapest(record),
  };
  const { entry, request } = validated(ctx, 'video', body, records);
  const result = await spendOneJob(
    ctx,
    `references ${plural(probe)}`,
    entry,
    request,
    submitContext(ctx, `refs-${probe.images}-${probe.videos}-${probe.audios}`),
  );
  if ('refused' in result) {
    if (!refusedAsInvalid(result.refused))
      return cannotCheck(`${plural(probe)}: refused for another reason: ${describeRefusal(result.refused)}`);
    return probe.fits ? notHeld(`${plural(probe)} were refused: ${describeRefusal(result.refused)}`) : undefined;
  }
  return probe.fits ? undefined : notHeld(`${plural(probe)} were taken (created ${result.upstreamTaskId}): more than the gateway allows`);
}

export const V_ASSUMPTIONS: readonly Assumption[] = [
  endpointListedModel,
  firstLastFrame('vendor-video-2-0-260128'),
  firstLastFrame('vendor-video-2-0-fast-260128'),
  references,
];
