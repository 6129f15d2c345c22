/** Platform V = Volcengine Ark content generation (Seedance): video only (../shared/upstreams.md, "Platform V"). */
import type { PlatformDefinition } from '../platform';
import { vCallbackReceiver } from './announcements';
import { vWorker, vWorkerEnv } from './config';
import { vModels, vPublicEnv } from './models-file';
import { V_MODELS } from './models';
import { vVideoFields } from './request-fields';
import { validateV } from './rules';

export const platformV: PlatformDefinition = {
  id: 'V',
  name: 'platform V',
  product: 'Volcengine Ark content generation (Seedance)',
  requestFields: { video: vVideoFields, image: {} },
  generalFields: {
    video: ['action', 'duration', 'resolution', 'image_url', 'last_frame_url', 'ratio', 'generate_audio', 'images'],
    image: [],
  },
  publicEnv: vPublicEnv,
  models: (env) => vModels(env, V_MODELS),
  validate: validateV,
  workerEnv: vWorkerEnv,
  worker: vWorker,
  callbacks: vCallbackReceiver,
};
