/**
 * Request schemas of spec 2.1 (video) and 2.2 (image): field types, enums and bounds. Rules that depend on the
 * model (durations, capabilities, platform-specific fields) live in core/validation.ts, driven by the catalogue.
 *
 * Unknown fields are rejected with an error naming them: a misspelt option silently ignored would cost the
 * client a paid generation it did not ask for.
 */
import { z } from 'zod';

export const MAX_PROMPT_LENGTH = 5_000;
export const MAX_URL_LENGTH = 4_096;
export const MAX_REFERENCE_ITEMS = 10;

export const httpUrl = z
  .string()
  .max(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` })
  .refine(
    (s) => {
      try {
        const u = new URL(s);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  )
  .meta({ format: 'uri', description: 'Absolute http(s) URL' });

const prompt = z.string().max(MAX_PROMPT_LENGTH, { message: `must be at most ${MAX_PROMPT_LENGTH} characters` });
const stringBool = z.enum(['true', 'false']);
const enabledDisabled = z.enum(['Enabled', 'Disabled']);

export const VIDEO_RATIO_VALUES = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;
export const IMAGE_ROLES = ['first_frame', 'last_frame', 'reference_image'] as const;

/** Platform T `FileInfos` item, keys as the spec lists them. */
export const fileInfoSchema = z
  .strictObject({
    Type: z.literal('Url'),
    Url: httpUrl,
    Category: z.literal('Image').optional(),
    Usage: z.enum(['FirstFrame', 'LastFrame', 'Reference']).optional(),
  })
  .meta({ id: 'FileInfo', description: 'Platform T reference file' });

export const videoOutputConfigSchema = z.strictObject({
  Duration: z.number().positive().optional(),
  Resolution: z.string().max(16).optional(),
  AspectRatio: z.string().max(16).optional(),
  AudioGeneration: enabledDisabled.optional(),
});

export const imageOutputConfigSchema = z.strictObject({
  Resolution: z.enum(['1K', '2K', '4K']).optional(),
  AspectRatio: z.string().max(16).optional(),
});

export const videoRequestSchema = z.strictObject({
  model: z.string().min(1).max(128),
  prompt: prompt.optional(),
  action: z.enum(['image_to_video', 'text_to_video']).optional(),
  duration: z.number().positive().max(600).optional(),
  resolution: z.string().min(1).max(16).optional(),
  image_url: httpUrl.optional(),
  negative_prompt: prompt.optional(),
  enhance_prompt: enabledDisabled.optional(),

  // Platform V
  ratio: z.enum(VIDEO_RATIO_VALUES).optional(),
  generate_audio: z.boolean().optional(),
  service_tier: z.enum(['standard', 'draft']).optional(),
  image_role: z.enum(IMAGE_ROLES).optional(),
  last_frame_url: httpUrl.optional(),
  video_url: httpUrl.optional(),
  audio_url: httpUrl.optional(),
  images: z
    .array(z.strictObject({ url: httpUrl, role: z.enum(IMAGE_ROLES).default('reference_image') }))
    .min(1)
    .max(MAX_REFERENCE_ITEMS)
    .optional(),
  videos: z
    .array(z.strictObject({ url: httpUrl, role: z.literal('reference_video').default('reference_video') }))
    .min(1)
    .max(3)
    .optional(),
  watermark: z.boolean().optional(),
  return_last_frame: z.boolean().optional(),

  // Platform B
  image: z.strictObject({ imageUrl: httpUrl }).optional(),
  audio: stringBool.optional(),
  bgm: stringBool.optional(),

  // Platform T
  output_config: videoOutputConfigSchema.optional(),
  file_infos: z.array(fileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
}).meta({ id: 'VideoGenerationRequest', description: 'Spec 2.1. Which fields a model accepts depends on its platform (see GET /v1/models).' });
export type VideoRequest = z.infer<typeof videoRequestSchema>;

export const imageRequestSchema = z.strictObject({
  model: z.string().min(1).max(128),
  prompt: prompt.min(1, { message: 'is required' }),
  negative_prompt: prompt.optional(),
  size: z.string().min(1).max(16).optional(),
  quality: z.enum(['standard', 'hd', '1K', '2K', '4K']).optional(),
  n: z.number().int().min(1).max(4).optional(),
  enhance_prompt: enabledDisabled.optional(),
  output_config: imageOutputConfigSchema.optional(),
  file_infos: z.array(fileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
}).meta({ id: 'ImageGenerationRequest', description: 'Spec 2.2.' });
export type ImageRequest = z.infer<typeof imageRequestSchema>;

/** What the workflow carries: a validated request, tagged by kind. */
export type GenerationRequest =
  | ({ kind: 'video' } & VideoRequest)
  | ({ kind: 'image' } & ImageRequest & { ratio?: string });
