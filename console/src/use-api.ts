/** A page's read of the admin API: its answer, its error, and a way to read again (after a change). */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './admin-api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

export function useApi<T>(path: string | undefined): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (!path) return;
    let current = true;
    setLoading(true);
    api<T>('GET', path).then(
      (d) => {
        if (!current) return;
        setData(d);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(err instanceof ApiError ? err.message : String(err));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload };
}
