/**
 * Turns a request body into a validated generation request, or an ApiError naming the offending field.
 * Schema (types, enums, bounds) first, then the catalogue-driven rules of platforms/validation.ts.
 */
import type { z } from 'zod';
import type { Catalogue } from '../core/catalogue';
import type { Kind } from '../core/task';
import { imageRequestSchema, videoRequestSchema } from '../platforms';
import { RequestRuleError, validateGeneration, type ValidatedRequest } from '../platforms/validation';
import { invalidRequest } from './api-error';

/** The first zod issue as `param` and a sentence a person understands. */
export function describeIssue(issue: z.core.$ZodIssue, input: unknown): { param: string; message: string; code: string } {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const param = [...path, key].join('.');
    return { param, message: `Unknown field '${param}'`, code: 'unknown_parameter' };
  }
  const param = path.join('.') || 'body';
  let value: unknown = input;
  for (const p of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  if (value === undefined && issue.code === 'invalid_type') {
    return { param, message: `${param} is required`, code: 'missing_parameter' };
  }
  const detail = issue.message.replace(/^Invalid input: /, '');
  return { param, message: `${param}: ${detail}`, code: 'invalid_value' };
}

export function parseGenerationBody(catalogue: Catalogue, enabled: ReadonlySet<string>, kind: Kind, body: unknown): ValidatedRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object', 'body', 'invalid_body');
  }
  const schema = kind === 'video' ? videoRequestSchema : imageRequestSchema;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, body);
    throw invalidRequest(message, param, code);
  }
  try {
    return validateGeneration(catalogue, enabled, kind, parsed.data as Record<string, unknown> & { model: string });
  } catch (err) {
    if (err instanceof RequestRuleError) throw invalidRequest(err.message, err.param, err.code);
    throw err;
  }
}
