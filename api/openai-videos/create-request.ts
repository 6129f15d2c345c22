/**
 * POST /v1/videos' body (OpenAI's `VideoCreateParams`: model, prompt, seconds, size, input_reference) → the body
 * of our own video generation request (docs/api.md "Video requests"). A translation of wire shapes only: nothing
 * here knows a model. The one start path (tasks/start.ts) validates the result like every other door's, and names
 * the fields of its refusals as this door does (FIELD_NAMES: `duration` is `seconds`, `ratio` and `resolution`
 * are `size`). Our own fields (`generate_audio`, `resolution`, `ratio`, `last_frame_url`, webhook fields…) are
 * accepted beside OpenAI's and passed on as they are.
 *
 * Refused here are only what cannot be translated: `seconds` that is no number, a `size` that is no `WxH` of one
 * of the general ratios, an `input_reference` of no known shape, and a field given twice (OpenAI's and ours).
 */
import type { z } from 'zod';
import { videoRequestSchema } from '../../platforms';
import { invalidRequest } from '../api-error';
import { DEFAULT_ASPECT, parseSeconds, SIZE_EXAMPLES, sizeFields } from './sizes';

/** What the OpenAI fields became: our request body (without the uploaded image's link) and how to name its fields. */
export interface MappedCreate {
  body: Record<string, unknown>;
  size?: string;
  /** `input_reference` was an uploaded file: its link goes into `image_url` once it is stored. */
  wantsUpload: boolean;
  /** The OpenAI field each general field came from (`duration` → `seconds`), for the start path to name its refusals by. */
  fieldNames: Record<string, string>;
  /** General fields the translation filled in that a model taking no such field goes without (a size's default aspect). */
  impliedFields: string[];
}

function secondsOf(body: Record<string, unknown>, value: unknown): number {
  const seconds = parseSeconds(value);
  if (seconds === undefined) throw invalidRequest('seconds must be a number of seconds, as a string ("8") or a number', 'seconds');
  if (body.duration !== undefined) throw invalidRequest('Give seconds or duration, not both', 'seconds', 'conflicting_parameters');
  return seconds;
}

/** `size` → our `ratio` and `resolution` (sizes.ts sizeFields); its default aspect is implied, not asked for. */
function applySize(body: Record<string, unknown>, size: unknown, mapped: MappedCreate): void {
  if (typeof size !== 'string') throw invalidRequest('size must be a string "WxH", e.g. "1280x720"', 'size');
  if (body.ratio !== undefined || body.resolution !== undefined) {
    throw invalidRequest('Give size, or ratio and resolution, not both', 'size', 'conflicting_parameters');
  }
  const fields = sizeFields(size);
  if (!fields) {
    throw invalidRequest(
      `size '${size}' is not a "WxH" size of a 16:9, 9:16, 1:1, 4:3 or 3:4 aspect (e.g. ${SIZE_EXAMPLES.join(', ')}); GET /v1/models lists each model's sizes`,
      'size',
    );
  }
  body.ratio = fields.ratio;
  body.resolution = fields.resolution;
  mapped.size = size.trim();
  Object.assign(mapped.fieldNames, { ratio: 'size', resolution: 'size' });
  if (fields.ratio === DEFAULT_ASPECT) mapped.impliedFields.push('ratio');
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

/** Maps the OpenAI fields of a parsed body (JSON, or a form after coerceFormFields) onto the general form. */
export function mapCreateBody(raw: unknown, uploaded: boolean): MappedCreate {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidRequest('The request body must be a JSON object or a form', 'body', 'invalid_body');
  const { seconds, size, input_reference, ...own } = raw as Record<string, unknown>;
  const body: Record<string, unknown> = { ...own };
  const mapped: MappedCreate = { body, wantsUpload: false, fieldNames: { duration: 'seconds' }, impliedFields: [] };
  if (seconds !== undefined) body.duration = secondsOf(own, seconds);
  if (size !== undefined) applySize(body, size, mapped);
  mapped.wantsUpload = applyReference(body, input_reference, uploaded);
  if (input_reference !== undefined && !uploaded) mapped.fieldNames.image_url = 'input_reference.image_url';
  if (uploaded) mapped.fieldNames.image_url = 'input_reference';
  return mapped;
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
 * what they are (`generate_audio=false`, `images=[{"url":…}]`), so a form request means what its JSON twin means;
 * `webhook_events` is a list, as JSON or comma-separated. A value that does not read as its type is left as text,
 * for validation to refuse naming the field. Every field is kept as an own field, `__proto__` included, for the
 * start path's text check to refuse by name.
 */
export function coerceFormFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value !== 'string' ? value : name === 'webhook_events' ? formListOf(value) : coerceFormValue(fieldType(name), value),
    ]),
  );
}

function coerceFormValue(type: string | undefined, value: string): unknown {
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (type === 'number' && /^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value);
  if ((type === 'array' || type === 'object') && /^\s*[[{]/.test(value)) return parsedOr(value);
  return value;
}

/**
 * A list sent as a form field: JSON (`["running","succeeded"]`) or comma-separated (`running,succeeded`), since a
 * form has no arrays; anything else is handed on as sent, for the field's check to refuse by name.
 */
function formListOf(value: string): unknown {
  if (/^\s*\[/.test(value)) return parsedOr(value);
  return value.split(',').map((s) => s.trim());
}

function parsedOr(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
