/**
 * A request in the general form (docs/api.md "Video requests" and "Image requests") → a validated generation request for one catalogue
 * model, or a TaskRefused naming the field: the text every door hands on is checked first (core/request-text.ts:
 * NUL, lone surrogates, prototype keys — a form's fields as much as a JSON body), then the schema (types, enums,
 * bounds), then the catalogue-driven rules of platforms/validation.ts.
 */
import type { Catalogue } from '../core/catalogue';
import { describeIssue } from '../core/describe-issue';
import { firstTextFault } from '../core/request-text';
import type { Kind } from '../core/task';
import { imageRequestSchema, videoRequestSchema } from '../platforms';
import { privateInputUrl, STRICT_INPUT_URLS, type InputUrlPolicy } from '../platforms/request';
import { RequestRuleError, validateGeneration, type ValidatedRequest } from '../platforms/validation';
import { invalidTask } from './refusal';

/** Refuses a value holding what no request may (core/request-text.ts), naming where. */
export function checkRequestText(value: unknown): void {
  const fault = firstTextFault(value);
  if (fault) throw invalidTask(fault.message, fault.path, fault.kind === 'forbidden_key' ? 'invalid_json' : 'invalid_value');
}

/** A request body after its text and its kind's schema were checked: the general form, `model` still a name. */
export type SchemaCheckedBody = Record<string, unknown> & { model: string };

/**
 * The checks before the model (the body is an object, its text, its kind's schema, its input URLs under `urls`), or a
 * TaskRefused naming the field.
 */
export function parseRequestBody(kind: Kind, body: unknown, urls: InputUrlPolicy): SchemaCheckedBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidTask('The request body must be a JSON object', 'body', 'invalid_body');
  }
  checkRequestText(body);
  const schema = kind === 'video' ? videoRequestSchema : imageRequestSchema;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, body);
    throw invalidTask(message, param, code);
  }
  const privateUrl = privateInputUrl(schema, parsed.data, urls);
  if (privateUrl) {
    const param = privateUrl.path.join('.');
    throw invalidTask(`${param}: ${privateUrl.message}`, param);
  }
  return parsed.data as SchemaCheckedBody;
}

/** A schema-checked body against the catalogue model it names (`model`), or a TaskRefused naming the field. */
export function validateForModel(
  catalogue: Catalogue,
  enabled: ReadonlySet<string>,
  kind: Kind,
  body: SchemaCheckedBody,
): ValidatedRequest {
  try {
    return validateGeneration(catalogue, enabled, kind, body);
  } catch (err) {
    if (err instanceof RequestRuleError) throw invalidTask(err.message, err.param, err.code);
    throw err;
  }
}

/** The whole validation of one request against the catalogue (tools and tests; input URLs: no private origin unless `urls` allows it). */
export function parseGenerationBody(
  catalogue: Catalogue,
  enabled: ReadonlySet<string>,
  kind: Kind,
  body: unknown,
  urls: InputUrlPolicy = STRICT_INPUT_URLS,
): ValidatedRequest {
  return validateForModel(catalogue, enabled, kind, parseRequestBody(kind, body, urls));
}
