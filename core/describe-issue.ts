/** A zod validation issue as a client reads it: the field it concerns (`param`), a sentence, and a code. */
import type { z } from 'zod';

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
