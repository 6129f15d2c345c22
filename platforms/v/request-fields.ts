/**
 * Spec 2.1's "Platform V specific parameters", plus two the gateway adds for what the platform really offers:
 * `audios` (several reference audios: 2.0 takes up to 3, the spec's `audio_url` carries one) and `web_search`
 * (sent as `tools: [{"type": "web_search"}]`, the only way Ark turns it on).
 */
import { z } from 'zod';
import type { FieldPricingTable } from '../field-pricing';
import { httpUrl, IMAGE_ROLES, MAX_REFERENCE_ITEMS } from '../request';

/**
 * The offline tier's window (`execution_expires_after`): 3600 to 259200 seconds, 172800 when the request leaves it
 * out (docs/platforms/v.md#the-offline-tier).
 */
export const V_FLEX_DEADLINE_MIN_S = 3_600;
export const V_FLEX_DEADLINE_MAX_S = 259_200;
export const V_FLEX_DEADLINE_DEFAULT_S = 172_800;

export const vVideoFields = {
  service_tier: z.enum(['standard', 'draft', 'flex']).optional().meta({
    description:
      "standard (default); draft: a 480p preview; flex: platform V's offline tier, run within deadline_seconds at the offline price (docs/platforms/v.md#the-offline-tier)",
  }),
  deadline_seconds: z
    .number()
    .int()
    .min(V_FLEX_DEADLINE_MIN_S)
    .max(V_FLEX_DEADLINE_MAX_S)
    .optional()
    .meta({
      description: `With service_tier flex: how long the platform may take, ${V_FLEX_DEADLINE_MIN_S} to ${V_FLEX_DEADLINE_MAX_S} seconds (default ${V_FLEX_DEADLINE_DEFAULT_S}); a job not done by then ends failed with code expired, unbilled`,
    }),
  image_role: z.enum(IMAGE_ROLES).optional(),
  video_url: httpUrl.optional(),
  audio_url: httpUrl.optional(),
  videos: z
    .array(z.strictObject({ url: httpUrl, role: z.literal('reference_video').default('reference_video') }))
    .min(1)
    // The model's own limit (3 on 2.0 by default, a models file may change it) is its rule's (rules.ts).
    .max(MAX_REFERENCE_ITEMS)
    .optional(),
  audios: z
    .array(z.strictObject({ url: httpUrl, role: z.literal('reference_audio').default('reference_audio') }))
    .min(1)
    .max(MAX_REFERENCE_ITEMS)
    .optional()
    .meta({ description: 'Platform V: reference audios (2.0 models, with at least one reference image or video).' }),
  web_search: z.boolean().optional().meta({ description: 'Platform V: let the model search the web for the prompt (2.0 only).' }),
  watermark: z.boolean().optional(),
  return_last_frame: z.boolean().optional(),
};

/**
 * What V's own fields do to a price (platforms/field-pricing.ts). V bills the output tokens it reports, and the
 * final figure is that report (pricing/cost.ts); what the estimate reserves is from the general fields.
 */
export const vFieldPricing: FieldPricingTable = {
  video: {
    // A draft is a 480p preview (rules.ts refuses another resolution): never dearer than the resolution priced. The
    // offline tier (flex) is priced by its own tier of the price table (pricing/), never at the online price.
    service_tier: { none: 'draft renders at 480p only; flex is priced by its own price tier, not by this field' },
    deadline_seconds: { none: "the offline job's deadline upstream (execution_expires_after): the same video at the same price" },
    image_role: { none: 'the role of image_url (frame or reference): the price is by output tokens' },
    // Whether reference media or web search add to V's bill beyond the output tokens it reports is unconfirmed
    // (docs/reference/prices.md): the final figure is V's report either way.
    video_url: { none: 'a reference video: V bills the output tokens it reports' },
    audio_url: { none: 'a reference audio: V bills the output tokens it reports' },
    videos: { none: 'reference videos: V bills the output tokens it reports' },
    audios: { none: 'reference audios: V bills the output tokens it reports' },
    web_search: { none: 'search for the prompt: V bills the output tokens it reports' },
    watermark: { none: 'a mark on the same video' },
    return_last_frame: { none: 'the last frame of the same video, returned as an image' },
  },
  image: {},
};
