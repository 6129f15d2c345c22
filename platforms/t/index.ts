/** Platform T = Tencent Cloud VOD AIGC: video and image (docs/platforms/t.md). */
import type { PlatformDefinition } from '../platform';
import { tWorker, tWorkerEnv } from './config';
import { tCallbackReceiver } from './announcements';
import { loadModelRecords, modelsFileEnv } from '../models-file';
import { T_MODELS, T_MODELS_FILE } from './models';
import { tFieldPricing, tImageFields, tVideoFields } from './request-fields';
import { validateT } from './rules';
import { T_PRICES } from './prices';
import { T_UNCONFIRMED } from './unconfirmed';

export const platformT: PlatformDefinition = {
  id: 'T',
  name: 'platform T',
  product: 'Tencent Cloud VOD AIGC',
  fieldPricing: tFieldPricing,
  requestFields: { video: tVideoFields, image: tImageFields },
  generalFields: {
    video: [
      'action',
      'duration',
      'resolution',
      'image_url',
      'last_frame_url',
      'ratio',
      'generate_audio',
      'negative_prompt',
      'enhance_prompt',
    ],
    image: ['negative_prompt', 'size', 'quality', 'n', 'enhance_prompt'],
  },
  publicEnv: modelsFileEnv(T_MODELS_FILE.variable),
  models: (env) => loadModelRecords(env, T_MODELS, T_MODELS_FILE),
  validate: validateT,
  // "RequestLimitExceeded: 调用超出并发限制" (a task over the account's concurrency fails so), one AIGC task at a time per
  // account unless more are bought: docs/platforms/t.md#capacity.
  concurrency: { defaultLimit: 1, source: 'https://cloud.tencent.com/document/api/266/126239' },
  workerEnv: tWorkerEnv,
  worker: tWorker,
  callbacks: tCallbackReceiver,
  unconfirmed: T_UNCONFIRMED,
  prices: T_PRICES,
};
