/** Platform V = Volcengine Ark content generation (Seedance): video only (docs/platforms/v.md). */
import type { PlatformDefinition } from '../platform';
import { vCallbackReceiver } from './announcements';
import { vWorker, vWorkerEnv } from './config';
import { loadModelRecords, modelsFileEnv } from '../models-file';
import { V_MODELS, V_MODELS_FILE } from './models';
import { vFieldPricing, vVideoFields } from './request-fields';
import { validateV } from './rules';
import { V_PRICES } from './prices';
import { V_UNCONFIRMED } from './unconfirmed';

export const platformV: PlatformDefinition = {
  id: 'V',
  name: 'platform V',
  product: 'Volcengine Ark content generation (Seedance)',
  fieldPricing: vFieldPricing,
  requestFields: { video: vVideoFields, image: {} },
  generalFields: {
    video: ['action', 'duration', 'resolution', 'image_url', 'last_frame_url', 'ratio', 'generate_audio', 'images'],
    image: [],
  },
  publicEnv: modelsFileEnv(V_MODELS_FILE.variable),
  models: (env) => loadModelRecords(env, V_MODELS, V_MODELS_FILE),
  validate: validateV,
  workerEnv: vWorkerEnv,
  worker: vWorker,
  callbacks: vCallbackReceiver,
  unconfirmed: V_UNCONFIRMED,
  prices: V_PRICES,
};
