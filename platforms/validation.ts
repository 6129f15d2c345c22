/**
 * Request validation after the zod schema: find the model, refuse fields its platform cannot carry, apply the
 * general rules (resolution letter case, sound, image size/quality/n), then the platform's own rules
 * (platforms/<id>/rules.ts), all driven by the catalogue. Every rejection names the field (`param`); nothing a
 * client sends is silently dropped.
 */
import type { Catalogue, ModelRecord } from '../core/catalogue';
import type { GenerationRequest, Kind } from '../core/task';
import { applyFieldPricing } from './field-pricing';
import { PLATFORM_DEFINITIONS, platformById } from './index';
import type { PlatformDefinition } from './platform';
import { UNIVERSAL_FIELDS } from './request';
import { normaliseResolution, requireCapability, RequestRuleError, sizeToRatio } from './rules';

export { RequestRuleError } from './rules';

export interface ValidatedRequest {
  entry: ModelRecord;
  request: GenerationRequest;
}

function carries(p: PlatformDefinition, kind: Kind, field: string): boolean {
  return (
    (UNIVERSAL_FIELDS[kind] as readonly string[]).includes(field) ||
    field in p.requestFields[kind] ||
    (p.generalFields[kind] as readonly string[]).includes(field)
  );
}

/** A field the model's platform cannot carry is an error naming the platforms that can. */
function checkPlatformFields(body: Record<string, unknown>, kind: Kind, entry: ModelRecord): void {
  const own = platformById(entry.platform);
  for (const field of Object.keys(body)) {
    if (body[field] === undefined || carries(own, kind, field)) continue;
    const where = PLATFORM_DEFINITIONS.filter((p) => carries(p, kind, field))
      .map((p) => p.name)
      .join(' and ');
    throw new RequestRuleError(
      field,
      `${field} is only supported by ${where} models; ${entry.id} is a ${own.name} model`,
      'unsupported_parameter',
    );
  }
}

export function lookupModel(catalogue: Catalogue, kind: Kind, model: string, enabled: ReadonlySet<string>): ModelRecord {
  const entry = catalogue.find(kind, model);
  if (!entry || !enabled.has(entry.platform)) {
    throw new RequestRuleError(
      'model',
      `The model '${model}' does not exist or is not available for ${kind} generation; GET /v1/models lists the available models`,
      'model_not_found',
    );
  }
  return entry;
}

/** A prompt longer than the model takes is refused before anything is paid for. */
function checkPromptLength(entry: ModelRecord, req: GenerationRequest): void {
  if (entry.maxPromptLength !== undefined && typeof req.prompt === 'string' && req.prompt.length > entry.maxPromptLength) {
    throw new RequestRuleError('prompt', `prompt is ${req.prompt.length} characters; ${entry.id} takes at most ${entry.maxPromptLength}`);
  }
}

function generalVideoRules(entry: ModelRecord, req: GenerationRequest): GenerationRequest {
  checkPromptLength(entry, req);
  const out = { ...req };
  if (typeof req.resolution === 'string') out.resolution = normaliseResolution(entry, req.resolution, 'resolution');
  if (req.generate_audio === true) requireCapability(entry, 'sound', 'generate_audio', 'generate_audio (video with sound)');
  return out;
}

function generalImageRules(entry: ModelRecord, req: GenerationRequest): GenerationRequest {
  checkPromptLength(entry, req);
  if (req.response_format === 'b64_json') {
    throw new RequestRuleError(
      'response_format',
      'response_format "b64_json" is not supported: results are returned as URLs that stay valid for 7 days; use "url" (the default)',
      'unsupported_parameter',
    );
  }
  const out = { ...req };
  delete out.response_format;
  if (typeof req.quality === 'string' && !(entry.qualities ?? []).includes(req.quality)) {
    throw new RequestRuleError(
      'quality',
      `quality '${req.quality}' is not supported by ${entry.id}; use one of ${(entry.qualities ?? []).join(', ')}`,
    );
  }
  if (typeof req.n === 'number' && req.n > (entry.maxImages ?? 1)) {
    throw new RequestRuleError('n', `n must be between 1 and ${entry.maxImages ?? 1} for ${entry.id}`);
  }
  if (typeof req.size === 'string') out.ratio = sizeToRatio(entry, req.size);
  return out;
}

/** `body` has passed the kind's request schema (platforms/index.ts). */
export function validateGeneration(
  catalogue: Catalogue,
  enabled: ReadonlySet<string>,
  kind: Kind,
  body: Record<string, unknown> & { model: string },
): ValidatedRequest {
  const entry = lookupModel(catalogue, kind, body.model, enabled);
  checkPlatformFields(body, kind, entry);
  const tagged: GenerationRequest = { ...body, kind };
  const general = kind === 'video' ? generalVideoRules(entry, tagged) : generalImageRules(entry, tagged);
  const platform = platformById(entry.platform);
  // Last: the platform's own fields that decide a price are carried into the general fields it is computed from.
  return { entry, request: applyFieldPricing(platform.fieldPricing[kind], entry, platform.validate(entry, general)) };
}
