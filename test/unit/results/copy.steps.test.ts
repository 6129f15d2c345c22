/**
 * The copy's attempt split into named steps: the checks it makes before sending anything and
 * before reading a body, each pinned on its own. The whole copy stays covered by test/unit/results/copy.test.ts, against a
 * real HTTP server.
 */
import { CopyFailure, judgeResponseHeaders, parseResultUrl, refuseUnfetchable } from '../../../results/copy';
import { thrownBy } from '../../support/refusal';

const failure = (fn: () => unknown): CopyFailure => thrownBy(fn, CopyFailure);

describe('parseResultUrl', () => {
  test('a URL parses; anything else is bad_url, final', () => {
    expect(parseResultUrl('https://cdn.example/a.mp4?sig=x').hostname).toBe('cdn.example');
    expect(failure(() => parseResultUrl('not a url'))).toMatchObject({ reason: 'bad_url', retryable: false });
  });
});

describe('refuseUnfetchable', () => {
  test.each([
    ['ftp://cdn.example/a.mp4', false, 'bad_url', /ftp: URLs are not fetched/],
    ['https://user:pw@cdn.example/a.mp4', false, 'bad_url', /credentials/],
    ['http://10.0.0.5/a.mp4', false, 'private_address', /is a private address$/],
    ['http://127.0.0.1:8090/files/a.mp4', false, 'private_address', /private address/],
  ])('%s is refused (%s)', (raw, trusted, reason, message) => {
    const f = failure(() => refuseUnfetchable(new URL(raw), trusted, 0));
    expect(f).toMatchObject({ reason, retryable: false });
    expect(f.message).toMatch(message);
  });

  test('a private address reached by a redirect says so; a trusted origin or a public one passes', () => {
    expect(failure(() => refuseUnfetchable(new URL('http://192.168.1.2/x'), false, 2)).message).toMatch(/\(reached by a redirect\)$/);
    expect(() => refuseUnfetchable(new URL('http://127.0.0.1:8090/files/a.mp4'), true, 0)).not.toThrow();
    expect(() => refuseUnfetchable(new URL('https://cdn.example/a.mp4'), false, 0)).not.toThrow();
  });
});

describe('judgeResponseHeaders', () => {
  const url = new URL('https://cdn.example/a.mp4?signature=secret');
  const ok = (headers: Record<string, string>) => ({ statusCode: 200, headers });

  test.each([
    [404, false],
    [403, false],
    [408, true],
    [429, true],
    [503, true],
  ])('status %i fails as upstream_status (retryable: %s), the query never in the message', (statusCode, retryable) => {
    const f = failure(() => judgeResponseHeaders({ statusCode, headers: {} }, url, 'video', 1_000));
    expect(f).toMatchObject({ reason: 'upstream_status', retryable, message: `GET https://cdn.example/a.mp4 answered ${statusCode}` });
  });

  test('a declared length over the limit is too_large before any byte is read', () => {
    expect(
      failure(() => judgeResponseHeaders(ok({ 'content-length': '1001', 'content-type': 'video/mp4' }), url, 'video', 1_000)),
    ).toMatchObject({ reason: 'too_large', retryable: false });
  });

  test('a declared type of the wrong kind is content_type; a generic one is left to the sniffing', () => {
    expect(failure(() => judgeResponseHeaders(ok({ 'content-type': 'text/html' }), url, 'video', 1_000))).toMatchObject({
      reason: 'content_type',
    });
    expect(judgeResponseHeaders(ok({ 'content-type': 'application/octet-stream' }), url, 'video', 1_000)).toMatchObject({
      declared: 'application/octet-stream',
      byHeader: undefined,
    });
  });

  test('an acceptable response: its declared length and type', () => {
    const v = judgeResponseHeaders(ok({ 'content-length': '1000', 'content-type': 'video/mp4; codecs=avc1' }), url, 'video', 1_000);
    expect(v).toEqual({ declaredLength: 1000, declared: 'video/mp4', byHeader: { ok: true, contentType: 'video/mp4' } });
    expect(Number.isNaN(judgeResponseHeaders(ok({ 'content-type': 'video/mp4' }), url, 'video', 1_000).declaredLength)).toBe(true);
  });
});
