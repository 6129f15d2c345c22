/**
 * The admin API's input, read one way everywhere: a JSON object body or a query checked against its zod schema, the
 * first problem answered 400 naming the field (a repeated query parameter is refused, never read as a list).
 */
import type { z } from 'zod';
import { describeIssue } from '../core/describe-issue';
import { invalidRequest } from './api-error';

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object', 'body', 'invalid_body');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, body);
    throw invalidRequest(message, param, code);
  }
  return parsed.data;
}

export function parseQuery<S extends z.ZodType>(schema: S, query: Record<string, unknown>): z.infer<S> {
  const repeated = Object.entries(query).find(([, v]) => Array.isArray(v));
  if (repeated) throw invalidRequest(`${repeated[0]} is given more than once`, repeated[0]);
  const parsed = schema.safeParse(query);
  if (!parsed.success) {
    const { param, message, code } = describeIssue(parsed.error.issues[0]!, query);
    throw invalidRequest(message, param, code);
  }
  return parsed.data;
}
