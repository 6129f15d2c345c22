/**
 * The ports tests and scripts start their parts on: free, never handed out twice by one process, and (on Linux)
 * below the ephemeral range, where no outgoing connection can take one between its choice and its use.
 */
import { createServer } from 'node:net';
import { ephemeralLow, freePort } from '../../../scripts/free-port';

const low = ephemeralLow();

test('concurrent calls get distinct ports, each one a listener can bind', async () => {
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  expect(new Set(ports).size).toBe(40);
  for (const port of ports.slice(0, 5)) {
    await new Promise<void>((resolve, reject) => {
      const srv = createServer().once('error', reject);
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
    });
  }
});

(low !== undefined && low >= 15_000 ? test : test.skip)('ports come from below the OS ephemeral range', async () => {
  for (let i = 0; i < 20; i++) expect(await freePort()).toBeLessThan(low!);
});
