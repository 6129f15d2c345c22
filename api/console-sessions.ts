/**
 * The operator's console signs in with the admin token once and then works with a session (docs/guides/operate.md#the-console): the token is exchanged at POST /admin/v1/sessions for a random session id in an
 * HttpOnly, SameSite=Strict cookie (Secure over https) that expires with the session, and a CSRF token the page
 * keeps in memory and sends as X-CSRF-Token on every state-changing request. Sessions live in the database every
 * API replica shares, found by an HMAC-SHA256 of the cookie's value keyed with the admin token, so a sign-out on
 * one replica ends the session on all of them, and a copy of the table signs nobody in. Keying the lookup with the
 * token ends every session when the token changes: after a restart with a new ADMIN_TOKEN, an old cookie's digest
 * names no row (docs/guides/operate.md#the-console), and neither the token nor a digest of it alone is ever
 * stored. The admin token itself goes nowhere but the sign-in body: no URL, no log line, no browser storage.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from '../keys/api-keys';
import { deleteExpiredSessions, deleteSession, findSession, insertSession, type SessionRow } from '../ledger/admin-sessions';
import type { LedgerDatabase } from '../ledger/database';

/** The session cookie; its path is the admin API's, the only place it is read. */
export const SESSION_COOKIE = 'mediagate_console';
export const SESSION_COOKIE_PATH = '/admin/v1';
export const CSRF_HEADER = 'X-CSRF-Token';

/** What a signed-in request carries in ctx.state (the cookie's value, to end the session at sign-out). */
export interface ConsoleSession extends SessionRow {
  value: string;
}

const randomToken = () => randomBytes(32).toString('base64url');

/** Two strings equal, compared in constant time (as digests, so their lengths tell nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

export class ConsoleSessions {
  /** `adminToken`: the ADMIN_TOKEN sessions are signed in with; a session made with another one is never found. */
  constructor(
    private readonly ledger: LedgerDatabase,
    readonly ttlMs: number,
    private readonly adminToken: string,
  ) {}

  /** The row's id for a cookie: bound to the admin token the session was made with. */
  private digest(value: string): Buffer {
    return createHmac('sha256', this.adminToken).update(value, 'utf8').digest();
  }

  /** A new session: the cookie's value (returned once, never stored) and its CSRF token. */
  async start(now = new Date()): Promise<ConsoleSession> {
    await deleteExpiredSessions(this.ledger, now);
    const value = randomToken();
    const csrfToken = randomToken();
    const expiresAt = new Date(now.getTime() + this.ttlMs);
    await insertSession(this.ledger, this.digest(value), csrfToken, expiresAt);
    return { value, csrfToken, expiresAt };
  }

  async find(value: string): Promise<ConsoleSession | undefined> {
    const row = await findSession(this.ledger, this.digest(value));
    return row && { ...row, value };
  }

  async end(value: string): Promise<void> {
    await deleteSession(this.ledger, this.digest(value));
  }
}
