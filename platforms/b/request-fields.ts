/**
 * Request fields only platform B carries: the B fields of docs/api.md "Video requests" for video, and the
 * reference images of B's image-to-image (docs/api.md "Image requests" names no field for them on B; `images` has the shape of the
 * general video field, so a client sends references the same way to either endpoint).
 */
import { z } from 'zod';
import type { FieldPricingTable } from '../field-pricing';
import { httpUrl, stringBool } from '../request';

/** NBP takes up to 14 input images (docs/platforms/b.md#images [OFF]). */
export const MAX_IMAGE_REFERENCES = 14;

export const bVideoFields = {
  image: z.strictObject({ imageUrl: httpUrl }).optional(),
  audio: stringBool.optional(),
  bgm: stringBool.optional(),
};

export const bImageFields = {
  images: z
    .array(z.strictObject({ url: httpUrl, role: z.literal('reference_image').default('reference_image') }))
    .min(1)
    .max(MAX_IMAGE_REFERENCES)
    .optional()
    .describe('Platform B image-to-image: reference images (NB up to 3, NBP up to 14)'),
};

/** `"true"` asks for sound, which a price with sound rates bills at its `sound` rate; `"false"` is the models' default. */
const soundOf = (v: unknown): true | undefined => (v === 'true' ? true : undefined);

/** What B's own fields do to a price (platforms/field-pricing.ts). */
export const bFieldPricing: FieldPricingTable = {
  video: {
    'image.imageUrl': { none: 'the first frame of image-to-video: the price is by output seconds and resolution' },
    audio: { priced: 'generate_audio', as: soundOf },
    // Whether B bills background music as sound is unconfirmed (docs/reference/prices.md): it is priced as sound,
    // the dearer rate, so a reservation is never short of the bill.
    bgm: { priced: 'generate_audio', as: soundOf },
  },
  image: {
    images: { none: 'reference images: the price is per output image, by quality or size' },
  },
};
