/**
 * The operator lists' page tokens (operations/visibility-page.ts): Temporal's next-page token travels to the client and
 * back with a checksum, so a token this API did not give — garbage, a truncated one, one edited by hand — is refused
 * before Temporal is asked (whose answer to a malformed token comes only after its client retried for ~20 s).
 */
import { decodePageToken, encodePageToken } from '../../../operations/visibility-page';

const temporalToken = Buffer.from([0x0a, 0x10, 0x01, 0x02, 0xff, 0x00, 0x7f, 0x33, 0x44]);

test('a token this API gave comes back as Temporal made it', () => {
  const given = encodePageToken(temporalToken);
  expect(given).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(Buffer.from(decodePageToken(given)!).equals(temporalToken)).toBe(true);
});

test.each([
  ['garbage', '[Filtered]'],
  ['base64url that is not a token of ours', Buffer.from('abc').toString('base64url')],
  ['Temporal’s bytes without the checksum', temporalToken.toString('base64url')],
  ['a token of ours with one character changed', encodePageToken(temporalToken).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))],
  ['a token of ours cut short', encodePageToken(temporalToken).slice(0, -2)],
])('%s is not a page token', (_what, token) => {
  expect(decodePageToken(token)).toBeUndefined();
});

test('no token: the first page', () => {
  expect(decodePageToken(undefined)).toBeUndefined();
  expect(decodePageToken('')).toBeUndefined();
});
