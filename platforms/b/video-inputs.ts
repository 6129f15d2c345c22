/**
 * Which B endpoint a video request goes to and which images it carries, read the same way by the request rules
 * (rules.ts) and the wire mapping (request-body.ts). A first frame may come from B's own `image.imageUrl` (docs/api.md "Video requests"), the
 * general `image_url`, or an `images` item with role first_frame; a last frame from `last_frame_url` or an
 * `images` item; reference images from `images`. Each input remembers the request field it came from, so a
 * refusal names that field.
 */
import type { VideoRequestOf } from '../request';
import { RequestRuleError } from '../rules';
import type { VideoEndpoint } from './model-spec';
import type { bVideoFields } from './request-fields';

export type BVideoRequest = VideoRequestOf<typeof bVideoFields>;

export interface ImageInput {
  url: string;
  /** The request field that carried it, for error messages. */
  param: string;
}

export interface VideoInputs {
  endpoint: VideoEndpoint;
  first?: ImageInput;
  last?: ImageInput;
  references: ImageInput[];
}

function one(candidates: ImageInput[], what: string): ImageInput | undefined {
  if (candidates.length > 1) {
    const distinct = new Set(candidates.map((c) => c.url));
    // The same URL given twice (image.imageUrl and image_url agreeing) is one input.
    if (distinct.size > 1)
      throw new RequestRuleError(
        candidates[1]!.param,
        `${candidates.map((c) => c.param).join(' and ')} give different ${what}s; send one of them`,
      );
  }
  return candidates[0];
}

export function readVideoInputs(req: BVideoRequest): VideoInputs {
  const images = (req.images ?? []).map((item, i) => ({ url: item.url, role: item.role, param: `images[${i}]` }));
  const firsts: ImageInput[] = [];
  if (req.image !== undefined) firsts.push({ url: req.image.imageUrl, param: 'image.imageUrl' });
  if (req.image_url !== undefined) firsts.push({ url: req.image_url, param: 'image_url' });
  for (const i of images) if (i.role === 'first_frame') firsts.push({ url: i.url, param: i.param });
  const lasts: ImageInput[] = [];
  if (req.last_frame_url !== undefined) lasts.push({ url: req.last_frame_url, param: 'last_frame_url' });
  for (const i of images) if (i.role === 'last_frame') lasts.push({ url: i.url, param: i.param });
  const references = images.filter((i) => i.role === 'reference_image').map(({ url, param }) => ({ url, param }));
  // docs/api.md "Video requests": `action` defaults to image_to_video.
  const endpoint: VideoEndpoint = req.action ?? 'image_to_video';
  const first = one(firsts, 'first frame');
  const last = one(lasts, 'last frame');
  return { endpoint, ...(first ? { first } : {}), ...(last ? { last } : {}), references };
}
