/** Spec 2.1's "Cloud platform B specific parameters". */
import { z } from 'zod';
import { httpUrl, stringBool } from '../request';

export const bVideoFields = {
  image: z.strictObject({ imageUrl: httpUrl }).optional(),
  audio: stringBool.optional(),
  bgm: stringBool.optional(),
};
