/** Spec 2.1/2.2's "Cloud platform T specific parameters": `output_config` and `file_infos`, keys as the spec lists them. */
import { z } from 'zod';
import { enabledDisabled, httpUrl, MAX_REFERENCE_ITEMS } from '../request';

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

export const tVideoFields = {
  output_config: videoOutputConfigSchema.optional(),
  file_infos: z.array(fileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
};

/** The image request's `output_config`/`file_infos` carry the same names with the image endpoint's shapes. */
export const tImageFields = {
  output_config: imageOutputConfigSchema.optional(),
  file_infos: z.array(fileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
};
