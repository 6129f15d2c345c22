/** What a call throws, of the type a unit test expects (an ApiError, a TaskRefused…): what a client would be told. */
import { ApiError } from '../../api/api-error';

export function thrownBy<E extends Error>(fn: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error('not refused');
}

/** The ApiError a call throws (its status, type, code and headers are what a client would get). */
export const refusal = (fn: () => unknown): ApiError => thrownBy(fn, ApiError);
