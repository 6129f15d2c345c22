/**
 * The e2e stack's admin API (ADMIN_TOKEN = E2E_ADMIN_TOKEN): keys made, changed and read as an operator would,
 * and a client for a key made there.
 */
import { ApiClient } from './client';
import { E2E_ADMIN_TOKEN } from './global-setup';

export interface AdminAnswer {
  status: number;
  body: any;
}

/** One admin API call with a JSON body (as the e2e stack's operator, unless `token` says whose). */
export async function adminCall(
  apiUrl: string,
  method: string,
  path: string,
  body?: unknown,
  token = E2E_ADMIN_TOKEN,
): Promise<AdminAnswer> {
  const r = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: await r.json() };
}

/** A key made through POST /admin/v1/keys (fields as the admin API takes them), as a client holding its secret. */
export async function makeKey(apiUrl: string, fields: { id: string } & Record<string, unknown>): Promise<ApiClient> {
  const r = await adminCall(apiUrl, 'POST', '/admin/v1/keys', fields);
  if (r.status !== 201) throw new Error(`POST /admin/v1/keys answered ${r.status}: ${JSON.stringify(r.body)}`);
  return new ApiClient(apiUrl, (r.body as { secret: string }).secret);
}
