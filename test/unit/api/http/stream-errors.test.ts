/**
 * What the API logs when an answer fails after it started: a client that left is one debug line per answer, however
 * many times Koa reports it; any other failure is an error line.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { AppContext } from '../../../../api/context';
import { streamErrorReporter } from '../../../../api/http/stream-errors';

function capture() {
  const lines: { level: number; msg: string; code?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, sink) };
}

const coded = (code: string) => Object.assign(new Error(code), { code });
const answer = () => ({ req: { destroyed: true }, state: {}, path: '/v1/generations/t/events', method: 'GET' }) as unknown as AppContext;

test('a client leaving is one debug line per answer, though reported twice (reset, then the pipe closed early)', async () => {
  const { lines, logger } = capture();
  const report = streamErrorReporter(logger);
  const [first, second] = [answer(), answer()];
  report(coded('ECONNRESET'), first);
  report(coded('ERR_STREAM_PREMATURE_CLOSE'), first);
  report(coded('ERR_STREAM_PREMATURE_CLOSE'), second);
  await new Promise((r) => setImmediate(r));
  expect(lines.map((l) => [l.level, l.code])).toEqual([
    [20, 'ECONNRESET'],
    [20, 'ERR_STREAM_PREMATURE_CLOSE'],
  ]);
});

test('any other failure after the answer started is an error line, each time', async () => {
  const { lines, logger } = capture();
  const report = streamErrorReporter(logger);
  const ctx = { req: { destroyed: false }, state: {}, path: '/v1/content/x', method: 'GET' } as unknown as AppContext;
  report(new Error('disk read failed'), ctx);
  report(new Error('disk read failed'), ctx);
  await new Promise((r) => setImmediate(r));
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [50, 'An answer failed after it had started'],
    [50, 'An answer failed after it had started'],
  ]);
});
