/** Platform B = Baidu AI Cloud VOD AIGC: video and image (../shared/platforms/b-baidu-vod.md). */
import { z } from 'zod';
import type { PlatformDefinition } from '../platform';
import { bWorker, bWorkerEnv } from './config';
import { B_MODELS } from './models';
import { bVideoFields } from './request-fields';
import { validateB } from './rules';

export const platformB: PlatformDefinition = {
  id: 'B',
  name: 'platform B',
  product: 'Baidu AI Cloud VOD AIGC',
  requestFields: { video: bVideoFields, image: {} },
  generalFields: {
    video: ['action', 'duration', 'resolution', 'image_url'],
    image: ['negative_prompt', 'size', 'quality', 'n'],
  },
  publicEnv: z.object({}),
  models: () => B_MODELS,
  validate: validateB,
  workerEnv: bWorkerEnv,
  worker: bWorker,
};
