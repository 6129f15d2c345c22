/** GET /v1/models: the catalogue's models whose platform is configured (or simulated). */
import type Router from '@koa/router';
import type { ModelEntry } from '../../core/catalogue';
import type { AppContext, AppDeps, AppState } from '../context';

export function modelView(e: ModelEntry) {
  return {
    id: e.id,
    object: 'model' as const,
    owned_by: e.platform,
    type: e.kind,
    ...(e.durations ? { durations: 'values' in e.durations ? { values: [...e.durations.values] } : { min: e.durations.min, max: e.durations.max } } : {}),
    ...(e.resolutions ? { resolutions: [...e.resolutions] } : {}),
    ratios: [...e.ratios],
    ...(e.qualities ? { qualities: [...e.qualities] } : {}),
    ...(e.maxImages ? { max_images: e.maxImages } : {}),
    ...(e.maxPromptLength ? { max_prompt_length: e.maxPromptLength } : {}),
    ...(e.maxReferenceImages !== undefined ? { max_reference_images: e.maxReferenceImages } : {}),
    capabilities: [...e.capabilities],
  };
}

export function modelRoutes(router: Router<AppState>, deps: AppDeps): void {
  router.get('/v1/models', (ctx: AppContext) => {
    const allowed = ctx.state.apiKey?.models;
    const models = deps.catalogue.available(deps.enabledPlatforms).filter((e) => !allowed || allowed.has(e.id));
    ctx.body = { object: 'list', data: models.map(modelView) };
  });
}
