/**
 * POST /v1/videos' body (OpenAI's `VideoCreateParams`: model, prompt, seconds, size, input_reference) → the body
 * of our own video generation request (docs/api.md "Video requests"), which then goes through the one request validation
 * (tasks/validation.ts) every video request goes through. Our own fields (`generate_audio`, `resolution`,
 * `ratio`, `last_frame_url`, …) are accepted beside OpenAI's and passed on as they are.
 *
 * OpenAI's fields are checked here first, so a refusal names them (`seconds`, `size`) rather than the fields
 * they become (`duration`, `ratio`, `resolution`), and lists what the model takes.
 */
import type { z } from 'zod';
import type { Catalogue, ModelRecord } from '../../core/catalogue';
import { videoRequestSchema } from '../../platforms';
import { routeLimits, type RouteTable } from '../../platforms/routes';
import { lookupModel, RequestRuleError } from '../../platforms/validation';
import { invalidRequest } from '../api-error';
import { chooseSize, describeSeconds, parseSeconds, secondsAllowed, sizeChoices } from './sizes';

/** What the OpenAI fields became: our request body (without the uploaded image's link) and the size asked for. */
export interface MappedCreate {
  entry: ModelRecord;
  body: Record<string, unknown>;
  size?: string;
  /** `input_reference` was an uploaded file: its link goes into `image_url` once it is stored. */
  wantsUpload: boolean;
}

/**
 * The model the fields are read against: a catalogue video model, or what a video route accepts (every value some
 * member takes: platforms/routes.ts routeLimits), each member then checking the request against its own rules.
 */
function modelOf(catalogue: Catalogue, enabled: ReadonlySet<string>, routes: RouteTable | undefined, model: unknown): ModelRecord {
  if (model === undefined) throw invalidRequest('model is required: a video model id of GET /v1/models', 'model', 'missing_parameter');
  if (typeof model !== 'string') throw invalidRequest('model must be a string (a video model id of GET /v1/models)', 'model');
  const route = routes?.find('video', model, enabled);
  if (route) return routeLimits(route);
  const image = catalogue.find('image', model) ?? routes?.find('image', model, enabled);
  if (image && !catalogue.find('video', model)) {
    throw invalidRequest(
      `'${model}' is an image model; /v1/videos takes video models (images: POST /v1/images/generations)`,
      'model',
      'model_not_found',
    );
  }
  try {
    return lookupModel(catalogue, 'video', model, enabled);
  } catch (err) {
    if (err instanceof RequestRuleError) throw invalidRequest(err.message, err.param, err.code);
    throw err;
  }
}

function secondsOf(entry: ModelRecord, body: Record<string, unknown>): number {
  const seconds = parseSeconds(body.seconds);
  if (seconds === undefined) throw invalidRequest('seconds must be a number of seconds, as a string ("8") or a number', 'seconds');
  if (body.duration !== undefined) throw invalidRequest('Give seconds or duration, not both', 'seconds', 'conflicting_parameters');
  if (!secondsAllowed(entry, seconds)) {
    throw invalidRequest(`seconds ${seconds} is not supported by ${entry.id}; use ${describeSeconds(entry)}`, 'seconds');
  }
  return seconds;
}

function applySize(entry: ModelRecord, body: Record<string, unknown>, size: unknown): string {
  if (typeof size !== 'string') throw invalidRequest('size must be a string "WxH", e.g. "1280x720"', 'size');
  if (body.ratio !== undefined || body.resolution !== undefined) {
    throw invalidRequest('Give size, or ratio and resolution, not both', 'size', 'conflicting_parameters');
  }
  const choice = chooseSize(entry, size);
  if (!choice) {
    const sizes = sizeChoices(entry).map((c) => c.size);
    throw invalidRequest(
      sizes.length > 0
        ? `size '${size}' is not supported by ${entry.id}; use one of ${sizes.join(', ')}`
        : `${entry.id} takes no size; leave it out`,
      'size',
    );
  }
  if (choice.ratio) body.ratio = choice.ratio;
  body.resolution = choice.resolution;
  return size.trim();
}

/** `input_reference` as `{ image_url }` becomes our `image_url`; an uploaded file is stored by the caller. */
function applyReference(body: Record<string, unknown>, reference: unknown, uploaded: boolean): boolean {
  if (uploaded) {
    if (reference !== undefined || body.image_url !== undefined)
      throw invalidRequest('Give input_reference once: an uploaded file or an image_url', 'input_reference', 'conflicting_parameters');
    return true;
  }
  if (reference === undefined) return false;
  if (typeof reference !== 'object' || reference === null || Array.isArray(reference)) {
    throw invalidRequest(
      'input_reference must be an uploaded image file (multipart/form-data) or {"image_url": "https://…"}',
      'input_reference',
    );
  }
  const { image_url, file_id, ...rest } = reference as Record<string, unknown>;
  if (file_id !== undefined)
    throw invalidRequest(
      'input_reference.file_id is not supported (there is no Files API here); upload the image or give image_url',
      'input_reference.file_id',
      'unsupported_parameter',
    );
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw invalidRequest(`Unknown field 'input_reference.${unknown}'`, `input_reference.${unknown}`, 'unknown_parameter');
  if (image_url === undefined)
    throw invalidRequest('input_reference.image_url is required', 'input_reference.image_url', 'missing_parameter');
  if (body.image_url !== undefined)
    throw invalidRequest('Give input_reference or image_url, not both', 'input_reference', 'conflicting_parameters');
  body.image_url = image_url;
  return false;
}

/** Maps the OpenAI fields of a parsed body (JSON, or a form after coerceFormFields). */
export function mapCreateBody(
  catalogue: Catalogue,
  enabled: ReadonlySet<string>,
  raw: unknown,
  uploaded: boolean,
  routes?: RouteTable,
): MappedCreate {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidRequest('The request body must be a JSON object or a form', 'body', 'invalid_body');
  const { seconds, size, input_reference, ...own } = raw as Record<string, unknown>;
  const entry = modelOf(catalogue, enabled, routes, own.model);
  const body: Record<string, unknown> = { ...own };
  if (seconds !== undefined) body.duration = secondsOf(entry, { ...own, seconds });
  const askedSize = size === undefined ? undefined : applySize(entry, body, size);
  const wantsUpload = applyReference(body, input_reference, uploaded);
  return { entry, body, ...(askedSize ? { size: askedSize } : {}), wantsUpload };
}

/** The schema of one of our own fields, without its optional/default wrappers. */
function fieldType(name: string): string | undefined {
  // Own fields only: a form field named `constructor` or `toString` is not a field of ours (it is refused by name).
  if (!Object.hasOwn(videoRequestSchema.shape, name)) return undefined;
  let schema = (videoRequestSchema.shape as Record<string, z.ZodType | undefined>)[name];
  while (schema && (schema.def.type === 'optional' || schema.def.type === 'default'))
    schema = (schema.def as unknown as { innerType: z.ZodType }).innerType;
  return schema?.def.type;
}

/**
 * A form's values are all text: our own fields that are booleans, numbers, lists or objects are read back as
 * what they are (`generate_audio=false`, `images=[{"url":…}]`), so a form request means what its JSON twin means.
 * A value that does not read as its type is left as text, for validation to refuse naming the field.
 */
export function coerceFormFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = typeof value === 'string' ? coerceFormValue(fieldType(name), value) : value;
  }
  return out;
}

function coerceFormValue(type: string | undefined, value: string): unknown {
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (type === 'number' && /^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value);
  if ((type === 'array' || type === 'object') && /^\s*[[{]/.test(value)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}
