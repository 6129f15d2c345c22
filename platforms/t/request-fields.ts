/**
 * Spec 2.1/2.2's "Cloud platform T specific parameters" — `output_config` and `file_infos`, keys as the spec lists
 * them — and `input_region`, the gateway's name for T's `InputRegion` (input URLs outside mainland China).
 */
import { z } from 'zod';
import type { ModelRecord } from '../../core/catalogue';
import type { FieldPricingTable } from '../field-pricing';
import { RequestRuleError } from '../rules';
import { tExtrasOf } from './models';
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

/** AigcVideoOutputConfig.AudioGeneration as the general `generate_audio`. */
const soundOf = (v: unknown): boolean => v === 'Enabled';

/**
 * An image Resolution as the `quality` it is priced by: the quality the model's table (models.ts `imageQuality`)
 * sends as that Resolution. A Resolution no quality stands for has no price to reserve, so it is refused.
 */
function qualityOf(value: unknown, entry: ModelRecord): string {
  const table = tExtrasOf(entry).imageQuality ?? {};
  const quality = Object.keys(table).find((q) => table[q]?.toLowerCase() === String(value).toLowerCase());
  if (quality === undefined) {
    throw new RequestRuleError(
      'output_config.Resolution',
      `output_config.Resolution '${String(value)}' is no quality of ${entry.id}, so it has no price; use quality (${Object.keys(table).join(', ')})`,
    );
  }
  return quality;
}

/** What T's own fields do to a price (platforms/field-pricing.ts); each output_config key wins over its general field upstream. */
export const tFieldPricing: FieldPricingTable = {
  video: {
    'output_config.Duration': { priced: 'duration', as: (v) => v as number },
    'output_config.Resolution': { priced: 'resolution', as: (v) => v as string },
    'output_config.AudioGeneration': { priced: 'generate_audio', as: soundOf },
    'output_config.AspectRatio': { conflicts: 'ratio', as: (v) => v as string },
    file_infos: { none: 'input images (first/last frame, references): the price is by output seconds and resolution' },
    input_region: { none: 'where T fetches the input URLs from' },
  },
  image: {
    'output_config.Resolution': { priced: 'quality', as: qualityOf },
    'output_config.AspectRatio': { conflicts: 'ratio', as: (v) => v as string },
    file_infos: { none: 'reference images: the price is per output image, by quality or size' },
    input_region: { none: 'where T fetches the input URLs from' },
  },
};
