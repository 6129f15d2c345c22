/**
 * The content endpoint's HTTP pieces that the system test cannot reach exhaustively: Range parsing (RFC 9110:
 * one range, suffix ranges, ignored when malformed or multiple, unsatisfiable past the end), entity-tag matching,
 * and the private-address check behind the copy's SSRF guard.
 */
import { etagMatches, parseRange } from '../../../../api/http/stored-object';
import { isPrivateAddress } from '../../../../results/address-guard';
import { judgeDeclared, sniffMediaType } from '../../../../results/media-type';

describe('parseRange', () => {
  test.each([
    ['bytes=0-99', 1000, { start: 0, end: 99 }],
    ['bytes=500-', 1000, { start: 500, end: 999 }],
    ['bytes=-100', 1000, { start: 900, end: 999 }],
    ['bytes=-5000', 1000, { start: 0, end: 999 }],
    ['bytes=990-2000', 1000, { start: 990, end: 999 }],
    ['bytes=999-999', 1000, { start: 999, end: 999 }],
  ])('%s of %d bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });

  test('unsatisfiable: starts at or past the end, an empty suffix, anything of an empty body', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=5000-6000', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  test('ignored (the whole body is sent): absent, other units, several ranges, malformed, reversed', () => {
    for (const h of [undefined, '', 'items=0-1', 'bytes=0-1,5-6', 'bytes=abc', 'bytes=-', 'bytes=9-3'])
      expect(parseRange(h, 1000)).toBeUndefined();
  });
});

describe('etagMatches', () => {
  test('exact, weak, lists and *', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abd"', '"abc"')).toBe(false);
  });
});

describe('private addresses (SSRF guard)', () => {
  test.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '[::1]',
  ])('%s is private', (ip) => expect(isPrivateAddress(ip)).toBe(true));
  test.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111', 'example.com'])('%s is not', (ip) => expect(isPrivateAddress(ip)).toBe(false));
});

describe('media types', () => {
  test('sniffing the formats platforms deliver', () => {
    expect(sniffMediaType(Buffer.from('\0\0\0\x20ftypisom\0\0\0\0', 'latin1'))).toBe('video/mp4');
    expect(sniffMediaType(Buffer.from('\0\0\0\x14ftypqt  \0\0\0\0', 'latin1'))).toBe('video/quicktime');
    expect(sniffMediaType(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, ...Buffer.from('....webm')]))).toBe('video/webm');
    expect(sniffMediaType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffMediaType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(sniffMediaType(Buffer.from('<!doctype html>'))).toBeUndefined();
  });

  test('declared types: kept, refused, or left to sniffing', () => {
    expect(judgeDeclared('video/mp4', 'video')).toEqual({ ok: true, contentType: 'video/mp4' });
    expect(judgeDeclared('image/jpg', 'image')).toEqual({ ok: true, contentType: 'image/jpeg' });
    expect(judgeDeclared('image/png', 'video')).toMatchObject({ ok: false });
    expect(judgeDeclared('application/json', 'image')).toMatchObject({ ok: false });
    expect(judgeDeclared('application/octet-stream', 'video')).toBeUndefined();
    expect(judgeDeclared('', 'video')).toBeUndefined();
  });
});
