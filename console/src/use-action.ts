/** A change a page makes through the admin API: busy while it runs, its error in words if it fails. */
import { useCallback, useState } from 'preact/hooks';
import { ApiError } from './admin-api';

export function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  /** Runs `action`; true when it succeeded. */
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (err) {
      setError(messageOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => setError(undefined), []);
  return { busy, error, run, clear };
}
