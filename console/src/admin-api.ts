/**
 * The console's one way to the gateway: the admin API, with the session cookie the browser holds (HttpOnly: this
 * script never sees it) and the session's CSRF token, kept in this module's memory only — never in storage — and
 * sent with every request that changes something. The admin token is sent once, in the sign-in body.
 */

/** An answer of the admin API that was not a success, as its error envelope says. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly param: string | null,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;
const signedOutListeners = new Set<() => void>();

/** Called when the gateway says the session has ended (expired, or signed out elsewhere). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { error?: { message?: string; code?: string | null; param?: string | null } };
    return new ApiError(res.status, body.error?.message ?? `HTTP ${res.status}`, body.error?.code ?? null, body.error?.param ?? null);
  } catch {
    return new ApiError(res.status, `HTTP ${res.status}`, null, null);
  }
}

async function send(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<Response> {
  const headers: Record<string, string> = { Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.ok) return res;
  const err = await errorOf(res);
  if (res.status === 401 && path !== '/admin/v1/sessions') {
    csrfToken = undefined;
    signedOutListeners.forEach((l) => l());
  }
  throw err;
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await (await send(method, path, body)).json()) as T;
}

/** A CSV answer (GET /admin/v1/usage with Accept: text/csv), as text. */
export async function apiCsv(path: string): Promise<string> {
  return (await send('GET', path, undefined, 'text/csv')).text();
}

interface SessionAnswer {
  expires_at: string;
  csrf_token: string;
}

export async function signIn(token: string): Promise<void> {
  const session = await api<SessionAnswer>('POST', '/admin/v1/sessions', { token });
  csrfToken = session.csrf_token;
}

/** After a reload: whether the cookie still carries a session (and its CSRF token). */
export async function resumeSession(): Promise<boolean> {
  const state = await api<Partial<SessionAnswer> & { signed_in: boolean }>('GET', '/admin/v1/sessions/current');
  csrfToken = state.signed_in ? state.csrf_token : undefined;
  return state.signed_in;
}

export async function signOut(): Promise<void> {
  try {
    await api('DELETE', '/admin/v1/sessions/current');
  } finally {
    csrfToken = undefined;
  }
}

/** A query string from the values given (empty ones left out). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
