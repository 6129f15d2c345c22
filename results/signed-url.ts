/**
 * Signed tokens for the gateway's result links: `?token=<expires>.<mac>` on GET /v1/generations/:id/content lets a
 * browser's <video> or <img> tag (which cannot send an Authorization header) fetch one output of one task until
 * the token expires. The MAC is HMAC-SHA256 over a version tag, the task id, which output, and the expiry, keyed
 * with RESULT_URL_SECRET; it is compared in constant time. Changing any part of the link (another task, another
 * output, a later expiry) invalidates it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Which output a link is for: `data[index]` or the last frame. */
export type OutputSelector = { index: number } | { lastFrame: true };

export function selectorText(s: OutputSelector): string {
  return 'lastFrame' in s ? 'last_frame' : `index:${s.index}`;
}

/** Bumped if the signed message ever changes shape, so old tokens fail instead of being misread. */
const VERSION = 'mediagate-content-v1';
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string | Buffer, taskId: string, selector: OutputSelector, expiresAt: number): Buffer {
  return createHmac('sha256', secret)
    .update(`${VERSION}\n${taskId}\n${selectorText(selector)}\n${expiresAt}`)
    .digest();
}

/** A token for `selector` of `taskId`, valid until `expiresAt` (seconds since the epoch). */
export function signContentToken(secret: string | Buffer, taskId: string, selector: OutputSelector, expiresAt: number): string {
  return `${expiresAt}.${mac(secret, taskId, selector, expiresAt).toString('base64url')}`;
}

export type TokenCheck = { ok: true; expiresAt: number } | { ok: false; why: 'malformed' | 'expired' | 'invalid' };

/** Checks a token against the task and output it is presented for. `nowSeconds` for tests. */
export function verifyContentToken(
  secret: string | Buffer,
  token: string,
  taskId: string,
  selector: OutputSelector,
  nowSeconds = Math.floor(Date.now() / 1000),
): TokenCheck {
  const m = TOKEN.exec(token);
  if (!m) return { ok: false, why: 'malformed' };
  const expiresAt = Number(m[1]);
  const given = Buffer.from(m[2]!, 'base64url');
  const expected = mac(secret, taskId, selector, expiresAt);
  // Constant time whatever the input: both are 32 bytes here (the pattern fixes the length).
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'invalid' };
  // Expiry is checked after the MAC, so an attacker learns nothing about a forged token's expiry.
  if (expiresAt <= nowSeconds) return { ok: false, why: 'expired' };
  return { ok: true, expiresAt };
}

/** The signed message of an input link (a client's uploaded reference image): its own tag, so no content token fits. */
const INPUT_VERSION = 'mediagate-input-v1';

function inputMac(secret: string | Buffer, key: string, expiresAt: number): Buffer {
  return createHmac('sha256', secret).update(`${INPUT_VERSION}\n${key}\n${expiresAt}`).digest();
}

/** A token for the stored input `key` (GET /v1/videos/inputs/…), valid until `expiresAt`: what a platform fetches. */
export function signInputToken(secret: string | Buffer, key: string, expiresAt: number): string {
  return `${expiresAt}.${inputMac(secret, key, expiresAt).toString('base64url')}`;
}

export function verifyInputToken(
  secret: string | Buffer,
  token: string,
  key: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): TokenCheck {
  const m = TOKEN.exec(token);
  if (!m) return { ok: false, why: 'malformed' };
  const expiresAt = Number(m[1]);
  const given = Buffer.from(m[2]!, 'base64url');
  const expected = inputMac(secret, key, expiresAt);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'invalid' };
  if (expiresAt <= nowSeconds) return { ok: false, why: 'expired' };
  return { ok: true, expiresAt };
}
