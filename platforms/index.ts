/**
 * The registry of platforms: the one list every platform-dependent thing is derived from — the platform ids,
 * the catalogue, `/v1/models` `owned_by`, the OpenAPI enums, the request schemas, the API's enabled platforms
 * and the worker's adapters. Adding a platform is one folder under platforms/ and one line here (and one
 * folder under sim/ with one line in sim/server.ts, for its simulator).
 */
import { z } from 'zod';
import { Catalogue } from '../core/catalogue';
import { callbackSchema, configError, parseEnv } from '../core/config';
import { platformB } from './b';
import type { ModelPrice } from '../pricing/price';
import type { PlatformDefinition } from './platform';
import { generalImageFields, generalVideoFields } from './request';
import { platformT } from './t';
import { platformV } from './v';

export const PLATFORM_DEFINITIONS: readonly PlatformDefinition[] = [platformT, platformB, platformV];

export const PLATFORM_IDS: readonly string[] = PLATFORM_DEFINITIONS.map((p) => p.id);

export function platformById(id: string): PlatformDefinition {
  const p = PLATFORM_DEFINITIONS.find((d) => d.id === id);
  if (!p) throw new Error(`unknown platform '${id}'`);
  return p;
}

/** Each platform's own fields joined to the general ones; a name two platforms claim is a programming error. */
function assemble(kind: 'video' | 'image', general: z.ZodRawShape): Record<string, z.core.$ZodType> {
  const shape: Record<string, z.core.$ZodType> = { ...general };
  for (const p of PLATFORM_DEFINITIONS) {
    for (const [field, schema] of Object.entries(p.requestFields[kind])) {
      if (field in shape) throw new Error(`platform ${p.id}: ${kind} request field '${field}' is already defined`);
      shape[field] = schema;
    }
  }
  return shape;
}

/** Spec 2.1: every field a video request may carry, for every platform. */
export const videoRequestSchema = z.strictObject(assemble('video', generalVideoFields)).meta({
  id: 'VideoGenerationRequest',
  description: 'Spec 2.1. Which fields a model accepts depends on its platform (see GET /v1/models).',
});
/** Spec 2.2. */
export const imageRequestSchema = z.strictObject(assemble('image', generalImageFields)).meta({
  id: 'ImageGenerationRequest',
  description: 'Spec 2.2. Which fields a model accepts depends on its platform (see GET /v1/models).',
});

/** Every platform's models, with the overrides its public configuration (e.g. a models file) gives. */
/** Every platform's published prices, by public model id (null: no public source confirms one). */
export function publishedPrices(): Map<string, ModelPrice | null> {
  return new Map(PLATFORM_DEFINITIONS.flatMap((p) => Object.entries(p.prices ?? {})));
}

export function buildCatalogue(env: NodeJS.ProcessEnv = {}): Catalogue {
  return new Catalogue(PLATFORM_DEFINITIONS.flatMap((p) => p.models(env)));
}

/** `PLATFORMS_ENABLED`: the platforms the gateway offers (default: all). */
export const platformsEnabledSchema = z.object({
  PLATFORMS_ENABLED: z
    .string()
    .default(PLATFORM_IDS.join(','))
    .transform((v, ctx) => {
      const ids = v
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean);
      for (const id of ids) {
        if (!PLATFORM_IDS.includes(id))
          ctx.addIssue({ code: 'custom', message: `unknown platform '${id}'; the platforms are ${PLATFORM_IDS.join(', ')}` });
      }
      return new Set(ids);
    }),
});

/** Every platform's public (non-secret) configuration, read by the API and the worker alike. */
export const platformsPublicEnv = PLATFORM_DEFINITIONS.reduce<z.ZodObject>(
  (acc, p) => acc.extend(p.publicEnv.shape),
  platformsEnabledSchema,
);

/** What the API reads to verify the platforms' pushed announcements (tokens, signing keys), with where it is reached. */
export const platformsCallbackEnv = PLATFORM_DEFINITIONS.reduce<z.ZodObject>(
  (acc, p) => (p.callbacks ? acc.extend(p.callbacks.env.shape) : acc),
  callbackSchema,
);

/** Every platform's worker-only configuration (endpoints, credentials). */
export const platformsWorkerEnv = PLATFORM_DEFINITIONS.reduce<z.ZodObject>((acc, p) => acc.extend(p.workerEnv.shape), z.object({}));

/** The enabled platforms (PLATFORMS_ENABLED); at least one. */
export function loadEnabledPlatforms(env: NodeJS.ProcessEnv): Set<string> {
  const enabled = parseEnv(platformsEnabledSchema, env).PLATFORMS_ENABLED;
  if (enabled.size === 0) throw configError('PLATFORMS_ENABLED', `name at least one platform (${PLATFORM_IDS.join(', ')})`);
  return enabled;
}

export type { PlatformAdapter, PlatformDefinition, SubmitContext, ReconcileContext, WorkerPlatform } from './platform';
