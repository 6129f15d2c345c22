/** Spec 2.1's "Platform V specific parameters": fields only platform V carries. */
import { z } from 'zod';
import { httpUrl, IMAGE_ROLES } from '../request';

export const vVideoFields = {
  service_tier: z.enum(['standard', 'draft']).optional(),
  image_role: z.enum(IMAGE_ROLES).optional(),
  video_url: httpUrl.optional(),
  audio_url: httpUrl.optional(),
  videos: z
    .array(z.strictObject({ url: httpUrl, role: z.literal('reference_video').default('reference_video') }))
    .min(1)
    .max(3)
    .optional(),
  watermark: z.boolean().optional(),
  return_last_frame: z.boolean().optional(),
};
