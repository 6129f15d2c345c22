/**
 * core/private-address.ts: IPv6 addresses that carry an IPv4 address are judged by the IPv4 address they carry, in
 * every form that embeds one (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64, 6to4, Teredo), wherever an
 * address from outside is checked: a URL's literal host, a name's resolved addresses at request time, and the
 * address a connection is about to be made to.
 */
import { embeddedIPv4, ipv6Groups, isPrivateAddress, isPrivateHost } from '../../../core/private-address';
import { checkWebhookUrl, parseWebhookUrl, WebhookUrlError } from '../../../webhooks/url';
import { guardedLookupVia, type Resolver } from '../../../results/address-guard';
import { httpUrl, privateInputUrl, STRICT_INPUT_URLS } from '../../../platforms/request';

/** Each embedding form, spelt for an IPv4 address (the Teredo server a public one, so the client decides). */
const FORMS: Record<string, (v4: string) => string> = {
  'IPv4-mapped ::ffff:0:0/96': (v4) => `::ffff:${v4}`,
  'IPv4-translated ::ffff:0:0:0/96': (v4) => `::ffff:0:${hex(v4)}`,
  'NAT64 64:ff9b::/96': (v4) => `64:ff9b::${hex(v4)}`,
  '6to4 2002::/16': (v4) => `2002:${hex(v4)}::1`,
  'Teredo 2001::/32 (client)': (v4) => `2001:0:4136:e378:8000:63bf:${inverted(v4)}`,
};

/** The two 16-bit groups of an IPv4 address, as hex. */
function hex(v4: string): string {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** Teredo's client address: the IPv4 address with every bit inverted. */
function inverted(v4: string): string {
  const [a, b, c, d] = v4.split('.').map((n) => 255 - Number(n)) as [number, number, number, number];
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

describe('IPv6 forms that carry an IPv4 address', () => {
  test('the spellings that passed the address guard before: 6to4 and IPv4-translated loopback', () => {
    expect(embeddedIPv4('2002:7f00:1::')).toEqual(['127.0.0.1']);
    expect(isPrivateAddress('2002:7f00:1::')).toBe(true);
    expect(embeddedIPv4('::ffff:0:7f00:1')).toEqual(['127.0.0.1']);
    expect(isPrivateAddress('[::ffff:0:7f00:1]')).toBe(true);
  });

  const privates = ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.0.10', '100.64.0.1', '0.0.0.0'];
  test.each(Object.entries(FORMS))('%s: private when what it carries is private, public when that is public', (_form, spell) => {
    for (const v4 of privates) {
      expect([spell(v4), embeddedIPv4(spell(v4))]).toEqual([spell(v4), expect.arrayContaining([v4])]);
      expect([spell(v4), isPrivateAddress(spell(v4))]).toEqual([spell(v4), true]);
    }
    expect([spell('8.8.8.8'), isPrivateAddress(spell('8.8.8.8'))]).toEqual([spell('8.8.8.8'), false]);
  });

  test("Teredo: a private server address is refused too (bits 32–63), whatever the client's", () => {
    expect(embeddedIPv4(`2001:0:${hex('10.0.0.1')}:0:0:${inverted('8.8.8.8')}`)).toEqual(['10.0.0.1', '8.8.8.8']);
    expect(isPrivateAddress(`2001:0:${hex('10.0.0.1')}:0:0:${inverted('8.8.8.8')}`)).toBe(true);
    expect(isPrivateAddress(`2001:0:${hex('8.8.4.4')}:0:0:${inverted('8.8.8.8')}`)).toBe(false);
  });

  test('IPv4-compatible ::/96 and local-use NAT64 64:ff9b:1::/48 are refused whatever they carry', () => {
    for (const ip of ['::7f00:1', '::808:808', '::1', '::', '64:ff9b:1::808:808', '64:ff9b:1:7f00:1::', '64:ff9b:1:ffff::'])
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
  });

  test('other addresses carry none and are judged as they are', () => {
    expect(embeddedIPv4('2606:4700::1111')).toEqual([]);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
    expect(isPrivateAddress('2001:db8::1')).toBe(true);
    expect(isPrivateAddress('3fff::1')).toBe(true);
    expect(isPrivateAddress('fec0::1')).toBe(true);
    expect(isPrivateAddress('192.88.99.1')).toBe(true);
  });

  test('every textual form of one address reads as the same eight groups', () => {
    const groups = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    for (const s of ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '[::FFFF:7F00:0001]'])
      expect([s, ipv6Groups(s)]).toEqual([s, groups]);
    expect(ipv6Groups('127.0.0.1')).toBeUndefined();
    expect(ipv6Groups('example.com')).toBeUndefined();
  });
});

describe('where addresses from outside are checked', () => {
  const loopbacks = [
    '[2002:7f00:1::]',
    '[::ffff:0:7f00:1]',
    '[64:ff9b::7f00:1]',
    `[2001:0:4136:e378:8000:63bf:${inverted('127.0.0.1')}]`,
    '[::ffff:169.254.169.254]',
  ];

  test.each(loopbacks)('a webhook URL naming %s is refused when the request arrives', (host) => {
    expect(() => parseWebhookUrl(`https://${host}/hook`, new Set())).toThrow(WebhookUrlError);
    expect(isPrivateHost(new URL(`https://${host}/`).hostname)).toBe(true);
  });

  test('a webhook host whose name resolves to a 6to4 spelling of loopback is refused when the request arrives', async () => {
    const resolve = async () => [{ address: '2002:7f00:1::' }];
    await expect(checkWebhookUrl('https://hooks.example.com/h', new Set(), { resolve })).rejects.toThrow(
      /resolves to a private address \(2002:7f00:1::\)/,
    );
  });

  test('a connection about to be made to an IPv4-translated loopback (a delivery, a copy) is refused', async () => {
    const resolver: Resolver = (_host, _options, callback) => callback(null, [{ address: '::ffff:0:7f00:1', family: 6 }]);
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => guardedLookupVia(resolver)('hooks.example.com', {}, (e) => r(e)));
    expect(err).toMatchObject({ code: 'EPRIVATEADDRESS' });
  });

  test.each(loopbacks)('an input URL naming %s is refused before any platform sees it', (host) => {
    const parsed = httpUrl.parse(`https://${host}/image.png`);
    expect(privateInputUrl(httpUrl, parsed, STRICT_INPUT_URLS)?.message).toMatch(/private, loopback or local/);
  });
});
