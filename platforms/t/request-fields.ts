/**
 * Spec 2.1/2.2's "Cloud platform T specific parameters" — `output_config` and `file_infos`, keys as the spec lists
 * them — and `input_region`, the gateway's name for T's `InputRegion` (input URLs outside mainland China).
 */
import { z } from 'zod';
import { enabledDisabled, httpUrl, MAX_REFERENCE_ITEMS } from '../request';

/** A video `FileInfos` item (AigcVideoTaskInputFileInfo): an image by URL, with its use. */
export const videoFileInfoSchema = z
  .strictObject({
    Type: z.literal('Url'),
    Url: httpUrl,
    Category: z.literal('Image').optional(),
    Usage: z.enum(['FirstFrame', 'LastFrame', 'Reference']).optional(),
  })
  .meta({
    id: 'FileInfo',
    description: 'Platform T video input file (AigcVideoTaskInputFileInfo): an image by URL; Usage defaults to FirstFrame',
  });

/** An image `FileInfos` item (AigcImageTaskInputFileInfo): a reference image by URL. It has no Category or Usage. */
export const imageFileInfoSchema = z
  .strictObject({ Type: z.literal('Url'), Url: httpUrl })
  .meta({ id: 'ImageFileInfo', description: 'Platform T reference image (AigcImageTaskInputFileInfo): no Category or Usage' });

export const videoOutputConfigSchema = z.strictObject({
  Duration: z.number().positive().optional(),
  Resolution: z.string().max(16).optional(),
  AspectRatio: z.string().max(16).optional(),
  AudioGeneration: enabledDisabled.optional(),
});

/** Resolution in the model's spelling (`1K`… for GG, `1k`/`2k` for Kling), matched case-insensitively. */
export const imageOutputConfigSchema = z.strictObject({
  Resolution: z.string().max(16).optional(),
  AspectRatio: z.string().max(16).optional(),
});

/**
 * InputRegion: "输入文件的区域信息。当文件url是国外地址时候，可选Oversea。默认Mainland" — T fetches input URLs from
 * mainland China unless told they are abroad. (The image action also knows OverseaUSWest; both kinds share the
 * two values the video action takes.)
 */
export const inputRegionSchema = z
  .enum(['Mainland', 'Oversea'])
  .meta({ description: 'Platform T: where the input URLs are served from. `Oversea` for URLs outside mainland China; default Mainland.' });

export const tVideoFields = {
  output_config: videoOutputConfigSchema.optional(),
  file_infos: z.array(videoFileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
  input_region: inputRegionSchema.optional(),
};

/** The image request's `output_config`/`file_infos` carry the same names with the image action's shapes. */
export const tImageFields = {
  output_config: imageOutputConfigSchema.optional(),
  file_infos: z.array(imageFileInfoSchema).min(1).max(MAX_REFERENCE_ITEMS).optional(),
  input_region: inputRegionSchema.optional(),
};
