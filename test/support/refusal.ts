/** The ApiError a call throws (its status, type, code and headers are what a client would get), for unit tests. */
import { ApiError } from '../../api/api-error';

export function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('not refused');
}
