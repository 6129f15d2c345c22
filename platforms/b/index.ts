/**
 * Platform B = Baidu AI Cloud VOD's AIGC API: video (Vidu, PixVerse, Kling, Hailuo, Veo families) and images
 * (docs/platforms/b.md). Model facts are data (models.ts) an operator corrects through
 * PLATFORM_B_MODELS_FILE.
 */
import { loadModelRecords } from '../models-file';
import type { PlatformDefinition } from '../platform';
import { bCallbackReceiver } from './announcements';
import { bPublicEnv, bWorker, bWorkerEnv } from './config';
import { B_MODELS, B_MODELS_FILE } from './models';
import { bFieldPricing, bImageFields, bVideoFields } from './request-fields';
import { validateB } from './rules';
import { bWireDocSection } from './doc-sections';
import { B_PRICES } from './prices';
import { B_PROTOCOL_UNCONFIRMED, familyFieldFacts } from './unconfirmed';
import { B_MODELS_DATA } from './models';

export const platformB: PlatformDefinition = {
  id: 'B',
  name: 'platform B',
  product: 'Baidu AI Cloud VOD AIGC',
  fieldPricing: bFieldPricing,
  requestFields: { video: bVideoFields, image: bImageFields },
  generalFields: {
    video: ['action', 'duration', 'resolution', 'image_url', 'last_frame_url', 'ratio', 'images', 'negative_prompt'],
    // No negative prompt: B's image request is one chat message (docs/platforms/b.md#images), with nowhere to put one.
    image: ['size', 'quality', 'n'],
  },
  publicEnv: bPublicEnv,
  models: (env) => loadModelRecords(env, B_MODELS, B_MODELS_FILE),
  validate: validateB,
  workerEnv: bWorkerEnv,
  worker: bWorker,
  callbacks: bCallbackReceiver,
  docSections: [bWireDocSection],
  unconfirmed: [...B_PROTOCOL_UNCONFIRMED, ...familyFieldFacts(B_MODELS_DATA)],
  prices: B_PRICES,
};
