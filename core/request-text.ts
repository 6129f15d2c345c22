/**
 * What no string in a request may hold, whichever door it came through (a JSON body, a form's fields): NUL
 * (truncates strings in C-based stacks upstream), a lone UTF-16 surrogate (a `\ud800` escape is valid JSON but not
 * text: it cannot be encoded as UTF-8 to forward), and the keys `__proto__`, `constructor` and `prototype` (they
 * have no meaning in any request and are the prototype-pollution vector). Bytes that are not UTF-8 are each door's
 * own check, made while it decodes them, before any string exists.
 */

/** A request's first fault: where it is (`images.0.url`, as validation names fields) and what it is. */
export interface TextFault {
  path: string;
  message: string;
  /** `forbidden_key` for the three keys above, `invalid_text` for a string or key with NUL or a lone surrogate. */
  kind: 'forbidden_key' | 'invalid_text';
}

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a string may not be forwarded, or undefined. */
export function badText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  // In a /u regular expression a lone surrogate is a code point of its own (category Cs); a pair is not.
  if (/\p{Cs}/u.test(s)) return 'contains an unpaired UTF-16 surrogate, which is not a character';
  return undefined;
}

/**
 * The first fault in a request value, walking every string and key. Iterative (an explicit stack), so its cost is
 * bounded by the value's size whatever its shape.
 */
export function firstTextFault(root: unknown): TextFault | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  const at = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const why = badText(value);
      if (why) return { path: path || 'body', message: `${path || 'body'} ${why}`, kind: 'invalid_text' };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: at(path, String(i)) });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [k] of entries) {
        const keyPath = at(path, k);
        if (FORBIDDEN_KEYS.has(k))
          return { path: keyPath, message: `Field '${keyPath}' is not allowed in a request`, kind: 'forbidden_key' };
        const why = badText(k);
        if (why) return { path: path || 'body', message: `A field name ${why}`, kind: 'invalid_text' };
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: at(path, entries[i]![0]) });
    }
  }
  return undefined;
}
