/**
 * platforms/b/announcements.ts: B's account-level VIDEO_GENERATE_COMPLETE events and their signature
 * (docs/platforms/b.md#callback-signatures). The documented form signs the body compacted as JSON with SHA256-HEX(token, content), whose
 * definition is cut off in every copy: both readings (HMAC keyed with the signKey, and SHA256 of the key followed by
 * the content) verify, over the compacted and over the raw body; a wrong key, an expired timestamp or a missing
 * signature never does. The expected tokens are computed here from that page, not with the receiver's own helpers.
 */
import { createHash, createHmac } from 'node:crypto';
import { bCallbackReceiver } from '../../../../platforms/b/announcements';
import { CallbackRefused } from '../../../../platforms/platform';

const SIGN_KEY = 'my_random_token';
const URL_ = 'https://gw.example/v1/callbacks/B';
const USER = 'e95e33a028bd49dbb3e08f068dc975d5';
const NOW = 1_731_317_262_714;
const TS = String(NOW - 1_000);
const EVENT = {
  eventId: 'evt-1',
  eventType: 'VIDEO_GENERATE_COMPLETE',
  eventTime: '2024-11-11T09:27:42Z',
  videoGenerateCompleteEvent: { taskId: 'job-1', status: 'SUCCESS' },
};
/** As a sender might put it on the wire: indented, so compacted and raw differ. */
const RAW = JSON.stringify(EVENT, null, 2);
const COMPACT = JSON.stringify(EVENT);

const content = (body: string) => `POST;${URL_};${body};${TS};${USER}`;
const hmac = (key: string, body: string) => createHmac('sha256', key).update(content(body)).digest('hex');
const prefixed = (key: string, body: string) =>
  createHash('sha256')
    .update(key + content(body))
    .digest('hex');

const receive = (token: string | undefined, opts: { body?: string; ts?: string; user?: string } = {}) =>
  bCallbackReceiver.create({ PLATFORM_B_CALLBACKS: 'manage', PLATFORM_B_CALLBACK_SIGN_KEY: SIGN_KEY })({
    rest: [],
    query: {},
    headers: {
      'vod-callback-auth-token': token,
      'vod-callback-auth-timestamp': opts.ts ?? TS,
      'vod-callback-auth-user': opts.user ?? USER,
    },
    rawBody: Buffer.from(opts.body ?? RAW),
    url: URL_,
    receivedAt: NOW,
  });

describe('B callback signature: every accepted form verifies', () => {
  test.each([
    ['HMAC-SHA256(key = signKey, content) over the compacted JSON (the documented form, first reading)', hmac(SIGN_KEY, COMPACT)],
    ['SHA256(signKey + content) over the compacted JSON (the documented form, second reading)', prefixed(SIGN_KEY, COMPACT)],
    ['HMAC-SHA256 over the raw body', hmac(SIGN_KEY, RAW)],
    ['SHA256(signKey + content) over the raw body', prefixed(SIGN_KEY, RAW)],
    ['upper-case hex', hmac(SIGN_KEY, COMPACT).toUpperCase()],
  ])('%s → the event wakes its task', (_form, token) => {
    expect(receive(token)).toEqual([{ upstreamTaskId: 'job-1' }]);
  });

  test('a compact body on the wire: compacted and raw are the same bytes, and verify', () => {
    expect(receive(hmac(SIGN_KEY, COMPACT), { body: COMPACT })).toEqual([{ upstreamTaskId: 'job-1' }]);
  });
});

describe('B callback signature: what never verifies', () => {
  test.each([
    ['a wrong token (another key), documented form', hmac('not-the-key', COMPACT)],
    ['a wrong token (another key), raw body', hmac('not-the-key', RAW)],
    ['a wrong token (another key), second reading', prefixed('not-the-key', COMPACT)],
    ['the content hashed without the key', createHash('sha256').update(content(COMPACT)).digest('hex')],
    [
      'the key after the content (not one of the readings)',
      createHash('sha256')
        .update(content(COMPACT) + SIGN_KEY)
        .digest('hex'),
    ],
    [
      'a token for another body',
      hmac(SIGN_KEY, JSON.stringify({ ...EVENT, videoGenerateCompleteEvent: { taskId: 'job-2', status: 'SUCCESS' } })),
    ],
  ])('%s → 401', (_what, token) => {
    expect(() => receive(token)).toThrow(expect.objectContaining({ status: 401, message: 'The event signature does not match' }));
  });

  test('a token signed for another user or timestamp → 401', () => {
    expect(() => receive(hmac(SIGN_KEY, COMPACT), { user: 'someone-else' })).toThrow(CallbackRefused);
    expect(() => receive(hmac(SIGN_KEY, COMPACT), { ts: String(NOW - 2_000) })).toThrow(CallbackRefused);
  });

  test('no signature, or one older than 5 minutes → 401', () => {
    expect(() => receive(undefined)).toThrow(expect.objectContaining({ status: 401 }));
    const old = String(NOW - 6 * 60_000);
    const stale = createHmac('sha256', SIGN_KEY).update(`POST;${URL_};${COMPACT};${old};${USER}`).digest('hex');
    expect(() => receive(stale, { ts: old })).toThrow(expect.objectContaining({ status: 401, message: expect.stringMatching(/expired/) }));
  });
});

describe('B events: only a JSON object is one; a refused event says which job it claims', () => {
  const unsigned = (body: string) =>
    bCallbackReceiver.create({ PLATFORM_B_CALLBACKS: 'manage' })({
      rest: [],
      query: {},
      headers: {},
      rawBody: Buffer.from(body),
      url: URL_,
      receivedAt: NOW,
    });

  test.each(['1', '"x"', 'true', 'null', '[]', '[{"eventType":"VIDEO_GENERATE_COMPLETE"}]', '', 'not json'])(
    'body %p → 400, as the OpenAPI document says (a JSON object)',
    (body) => {
      expect(() => unsigned(body)).toThrow(expect.objectContaining({ status: 400 }));
    },
  );

  test('an object is read (no sign key set): its job, or nothing for another event type', () => {
    expect(unsigned(COMPACT)).toEqual([{ upstreamTaskId: 'job-1' }]);
    expect(unsigned('{"eventType":"SOMETHING_ELSE"}')).toEqual([]);
  });

  test('a signature refused (401) carries the job the event names, unverified, for the API to check; nothing when the body names none', () => {
    expect(() => receive(hmac('not-the-key', COMPACT))).toThrow(
      expect.objectContaining({ status: 401, claims: [{ upstreamTaskId: 'job-1' }] }),
    );
    expect(() => receive(undefined)).toThrow(expect.objectContaining({ status: 401, claims: [{ upstreamTaskId: 'job-1' }] }));
    expect(() => receive(hmac('not-the-key', '[1]'), { body: '[1]' })).toThrow(expect.objectContaining({ status: 401, claims: [] }));
  });
});
