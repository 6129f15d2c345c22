/**
 * The benchmark's stand-in for a platform's file storage, run as its own process (bench/result-store.ts starts it):
 * GET /bytes/<n> streams n bytes of an "MP4" (an ftyp box, then filler) as video/mp4 with a Content-Length,
 * generated chunk by chunk so the server itself holds no more than one chunk. Prints its port on stdout.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNK = Buffer.alloc(256 * 1024, 0x5a);
const HEAD = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), Buffer.alloc(20)]);

const server = createServer((req, res) => {
  const m = /^\/bytes\/(\d+)$/.exec(req.url ?? '');
  if (!m) {
    res.writeHead(404).end();
    return;
  }
  const total = Number(m[1]);
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': total });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = sent === 0 ? HEAD.subarray(0, Math.min(HEAD.length, total)) : CHUNK.subarray(0, Math.min(CHUNK.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
});
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
