/**
 * PLATFORM_V_MODELS_FILE: the deployment's public-id → upstream-model-id mapping for platform V. The defaults
 * (models.ts) are Volcengine Ark's ids; BytePlus (international) spells them differently, and a deployment may not
 * have every model opened. Read by the API (the catalogue it validates and lists) and the worker (the ids it
 * sends), at start; anything wrong in the file is a start-up error naming the variable.
 *
 * The file is a JSON object: each key a public model id, each value the upstream id to send, or null to leave the
 * model out of this deployment. Models not named keep their default.
 *
 *   { "vendor-video-2-0-260128": "dreamina-seedance-2-0-260128",
 *     "vendor-video-1-5-pro-251215": "seedance-1-5-pro-251215",
 *     "vendor-video-1-0-lite-t2v-250428": null }
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ModelEntry } from '../../core/catalogue';
import { configError, optionalString, parseEnv } from '../../core/config';

export const vPublicEnv = z.object({
  /** JSON file mapping V's public model ids to the deployment's upstream ids (null: model not offered). */
  PLATFORM_V_MODELS_FILE: optionalString,
});

const VARIABLE = 'PLATFORM_V_MODELS_FILE';

/** An Ark model or endpoint id (`doubao-seedance-…`, `dreamina-…`, `ep-2025…`). */
const upstreamId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be a model or endpoint id of letters, digits, dots, dashes and underscores');
const modelsFileSchema = z.record(z.string(), upstreamId.nullable());

export function parseModelsFile(text: string, defaults: readonly ModelEntry[], where: string): readonly ModelEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw configError(VARIABLE, `${where} is not JSON: ${(err as Error).message}`);
  }
  const parsed = modelsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw configError(VARIABLE, `${where}: ${issue.path.length > 0 ? `"${issue.path.join('.')}" ` : ''}${issue.message}`);
  }
  const known = new Set(defaults.map((e) => e.id));
  const unknown = Object.keys(parsed.data).filter((id) => !known.has(id));
  if (unknown.length > 0) throw configError(VARIABLE, `${where} names unknown platform V models: ${unknown.join(', ')}; the models are ${[...known].join(', ')}`);
  return defaults.flatMap((entry): ModelEntry[] => {
    if (!(entry.id in parsed.data)) return [entry];
    const upstream = parsed.data[entry.id];
    return upstream === null || upstream === undefined ? [] : [{ ...entry, upstream: { model: upstream } }];
  });
}

/** The platform's catalogue entries with the models file's overrides (none when the variable is unset). */
export function vModels(env: NodeJS.ProcessEnv, defaults: readonly ModelEntry[]): readonly ModelEntry[] {
  const file = parseEnv(vPublicEnv, env).PLATFORM_V_MODELS_FILE;
  if (file === undefined) return defaults;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw configError(VARIABLE, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseModelsFile(text, defaults, file);
}
