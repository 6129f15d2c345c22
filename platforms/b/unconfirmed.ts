/**
 * Platform B's facts no public source confirms (docs/platforms/b.md#unconfirmed): the protocol's, each with the setting that changes it, and the TaskInput field
 * names of the families no official page documents, generated from the model data (models.ts) so the list
 * follows it. The conformance run (platforms/b/conformance.ts) checks them by the same ids.
 */
import type { UnconfirmedFact } from '../../core/catalogue';
import { DEFAULT_VIDEO_EVENT_SWITCH } from './announcements';
import type { BModelsData, Family } from './model-spec';
import { MODELS_FILE_VARIABLE } from './models-file';

/** The families whose VOD TaskInput names no official page gives (docs/platforms/b.md#fields). */
const UNDOCUMENTED_FAMILIES: readonly Family[] = ['kling', 'pixverse', 'hailuo'];

export const B_PROTOCOL_UNCONFIRMED: readonly UnconfirmedFact[] = [
  {
    id: 'b.prices',
    fact: "Of platform B's models only VQ1, VQ1C and V20 have a price (the official page's per-clip prices, per second); the others have none",
    why: "Baidu VOD's page (cloud.baidu.com/doc/VOD/s/dm64ry4hl) prices clips by duration, not seconds, and does not list every model",
    override:
      'PRICES_FILE {"VQ2": {"currency": "CNY", "source": "<the price page or contract>", "per_second": {"720p": <rate>, "1080p": <rate>}}, "I4YG1": {"currency": "CNY", "source": "…", "per_image": {"*": <rate>}}} (docs/reference/prices.md)',
  },
  {
    id: 'b.callback-switch',
    fact: `The CallbackConfig switch for video-generation events is named \`${DEFAULT_VIDEO_EVENT_SWITCH}\``,
    why: 'not visible in the docs; inferred from its documented siblings (enableMediaTranscodeCompleteEvent, …) [INF]',
    override: 'PLATFORM_B_CALLBACK_SWITCH=<the name GET /v2/callback shows> (worker)',
  },
  {
    id: 'b.v3-reads-through-v2',
    fact: 'A text-to-video task created through /v3 (PLATFORM_B_API_KEY) is read, listed and recovered through /v2 (AK/SK)',
    why: "the API-key page says v3 requests equal v2's, not that their tasks are one list",
    override: 'unset PLATFORM_B_API_KEY (worker): text-to-video is then created through /v2 with AK/SK like everything else',
  },
  {
    id: 'b.echo-exact',
    fact: "A task's detail echoes its create request exactly (videoGenerateTaskInput), so a lost answer is adopted on exact equality",
    why: 'no source says whether defaults are filled in or ignored fields dropped',
    override:
      'none needed: when no echo is exact, normalised echoes are compared (docs/platforms/b.md#lost-answers); identical requests on a family without a seed may then end upstream_lost (ambiguous) rather than be adopted',
  },
  {
    id: 'b.bill-vod-day',
    fact: "GetResourceMonthBill bills VOD's AIGC generation under serviceType `VOD` in CNY, a day range (beginTime = endTime) is the UTC day, and a row's catalogPrice is the list price the gateway's prices are",
    why: "the billing pages name serviceType codes only by example (BCC, BOS), give the rows' startTime/endTime in UTC but not the day range's time zone, and no page ties VOD's AIGC charge items to a model",
    override:
      'none: a wrong guess shows as a `total` money difference on every day with tasks (docs/platforms/b.md#reconciliation); PLATFORM_B_BILLING_ENDPOINT (worker) only moves the host',
  },
];

/** One fact per undocumented family: its TaskInput field names, as the model data has them. */
export function familyFieldFacts(data: BModelsData): UnconfirmedFact[] {
  return UNDOCUMENTED_FAMILIES.map((family) => {
    const spec = data.families[family];
    const names = Object.entries(spec.fields)
      .filter(([, f]) => f && f.evidence !== 'OFF' && f.evidence !== 'OPERATOR')
      .map(([role, f]) => `${role}→\`${f!.name}\``);
    return {
      id: `b.${family}-fields`,
      fact: `${spec.label}'s TaskInput field names: ${names.join(', ')}`,
      why: `no official page documents ${spec.label}'s VOD TaskInput (docs/platforms/b.md#fields: GUESS/INF)`,
      override: `${MODELS_FILE_VARIABLE} {"platform": {"families": {"${family}": {"fields": {"<role>": {"name": "<name>"}}}}}}`,
    };
  });
}
