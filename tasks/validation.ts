/**
 * A request in the general form (spec 2.1 video, 2.2 image) → a validated generation request for one catalogue
 * model, or a TaskRefused naming the field: the text every door hands on is checked first (core/request-text.ts:
 * NUL, lone surrogates, prototype keys — a form's fields as much as a JSON body), then the schema (types, enums,
 * bounds), then the catalogue-driven rules of platforms/validation.ts.
 */
import type { Catalogue } from '../core/catalogue';
import { describeIssue } from '../core/describe-issue';
import { firstTextFault } from '../core/request-text';
import type { Kind } from '../core/task';
import { imageRequestSchema, videoRequestSchema } from '../platforms';
import { RequestRuleError, validateGeneration, type ValidatedRequest } from '../platforms/validation';
import { invalidTask } from './refusal';

/** Refuses a value holding what no request may (core/request-text.ts), naming where. */
export function checkRequestText(value: unknown): void {
  const fault = firstTextFault(value);
  if (fault) throw invalidTask(fault.message, fault.path, fault.kind === 'forbidden_key' ? 'invalid_json' : 'invalid_value');
}

export function parseGenerationBody(catalogue: Catalogue, enabled: ReadonlySet<string>, kind: Kind, body: unknown): ValidatedRequest {
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
  try {
    return validateGeneration(catalogue, enabled, kind, parsed.data as Record<string, unknown> & { model: string });
  } catch (err) {
    if (err instanceof RequestRuleError) throw invalidTask(err.message, err.param, err.code);
    throw err;
  }
}
