/** scripts/child-process.ts: the start-and-wait-for-ready used by `npm start` and the image check, on real processes. */
import { startProcess } from '../../../scripts/child-process';

const node = (script: string, readyTimeoutMs = 10_000) => ({
  name: 'part',
  command: process.execPath,
  args: ['-e', script],
  cwd: process.cwd(),
  env: process.env,
  ready: /part ready/,
  readyTimeoutMs,
});

test('resolves once a line says ready, hands every line on, and stops the process with SIGTERM', async () => {
  // The child takes SIGTERM before it says it is ready: said after, a loaded machine's parent could signal first
  // and find the child killed by the signal (code null) instead of exiting 0.
  const lines: string[] = [];
  const p = await startProcess({
    ...node(
      "process.on('SIGTERM', () => process.exit(0)); console.log('booting'); console.error('part ready'); setInterval(() => {}, 1000);",
    ),
    onLine: (l) => lines.push(l),
  });
  expect(lines).toEqual(['booting', 'part ready']);
  expect(await p.stop(5_000)).toBe(0);
  expect(await p.exited).toEqual({ code: 0, signal: null });
});

test('a process that exits before it is ready rejects, quoting its last output', async () => {
  await expect(startProcess(node("console.error('config: PORT is not a number'); process.exit(3);"))).rejects.toThrow(
    /part exited with code 3 during start-up:\nconfig: PORT is not a number/,
  );
});

test('a process that never says ready is killed at the bound and rejects', async () => {
  await expect(startProcess(node("console.log('still booting'); setInterval(() => {}, 1000);", 500))).rejects.toThrow(
    /part did not start within 500 ms:\nstill booting/,
  );
});

test('a silent process is ready when its probe answers true (asked until then), and a probe that never does hits the bound', async () => {
  let asked = 0;
  const silent = { ...node("process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);") };
  const p = await startProcess({ ...silent, ready: async () => ++asked >= 3 });
  expect(asked).toBe(3);
  expect(await p.stop(5_000)).toBe(0);
  await expect(startProcess({ ...silent, ready: async () => false, readyTimeoutMs: 600 })).rejects.toThrow(
    /part did not start within 600 ms/,
  );
});
