/**
 * The console's sign-in sessions as rows (api/console-sessions.ts decides what they mean). A session is found by the
 * SHA-256 of its cookie's value: the value itself is never stored, so a read of the table signs nobody in.
 */
import type { LedgerDatabase } from './database';

export interface SessionRow {
  csrfToken: string;
  expiresAt: Date;
}

export async function insertSession(ledger: LedgerDatabase, digest: Buffer, csrfToken: string, expiresAt: Date): Promise<void> {
  await ledger.db.insertInto('admin_sessions').values({ digest, csrf_token: csrfToken, expires_at: expiresAt }).execute();
}

/** The live session with this digest; undefined when there is none or it has expired. */
export async function findSession(ledger: LedgerDatabase, digest: Buffer, now = new Date()): Promise<SessionRow | undefined> {
  const row = await ledger.db
    .selectFrom('admin_sessions')
    .select(['csrf_token', 'expires_at'])
    .where('digest', '=', digest)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

/** Ends a session (sign-out): every replica's next read finds nothing. */
export async function deleteSession(ledger: LedgerDatabase, digest: Buffer): Promise<void> {
  await ledger.db.deleteFrom('admin_sessions').where('digest', '=', digest).execute();
}

/** Forgets sessions that have expired (called at each sign-in, so the table stays as small as the live sessions). */
export async function deleteExpiredSessions(ledger: LedgerDatabase, now = new Date()): Promise<void> {
  await ledger.db.deleteFrom('admin_sessions').where('expires_at', '<=', now).execute();
}
