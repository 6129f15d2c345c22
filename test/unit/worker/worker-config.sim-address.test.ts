/**
 * The worker finds the simulator where the simulator listens. With only SIM_PORT changed, the
 * worker (and `npm start`'s banner, which prints its SIM_BASE_URL) must name that port, not 8090.
 */
import { createServer } from 'node:net';
import { loadSimConfig } from '../../../sim/sim-config';
import { startSimulator, type Simulator } from '../../../sim/server';
import { loadWorkerConfig, simulatorUrl } from '../../../worker/worker-config';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('SIM_BASE_URL follows SIM_PORT', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  test('with only SIM_PORT set, the worker calls the simulator started from the same environment', async () => {
    const env = { SIM_PORT: String(await freePort()) };
    const simConfig = loadSimConfig(env);
    sim = await startSimulator({ host: simConfig.SIM_HOST, port: simConfig.SIM_PORT });
    const worker = loadWorkerConfig(env);
    expect(worker.SIM_BASE_URL).toBe(`http://127.0.0.1:${env.SIM_PORT}`);
    expect(worker.platforms.V?.endpoint).toBe(`${worker.SIM_BASE_URL}/api/v3`);
    const res = await fetch(`${worker.SIM_BASE_URL}/_sim/health`, { signal: AbortSignal.timeout(5_000) });
    expect(await res.json()).toEqual({ ok: true });
  });

  test('unset everywhere, both default to 8090', () => {
    expect(loadWorkerConfig({}).SIM_BASE_URL).toBe('http://127.0.0.1:8090');
    expect(loadSimConfig({}).SIM_PORT).toBe(8090);
  });

  test('an explicit SIM_BASE_URL wins (the simulator in another container), without its trailing slash', () => {
    expect(loadWorkerConfig({ SIM_BASE_URL: 'http://sim:8090/', SIM_PORT: '9000' }).SIM_BASE_URL).toBe('http://sim:8090');
  });

  test.each([
    ['0.0.0.0', 'http://127.0.0.1:9100'],
    ['::', 'http://127.0.0.1:9100'],
    ['10.1.2.3', 'http://10.1.2.3:9100'],
    ['::1', 'http://[::1]:9100'],
    ['localhost', 'http://localhost:9100'],
  ])('a simulator listening on %s is reached at %s', (host, url) => {
    expect(simulatorUrl({ SIM_HOST: host, SIM_PORT: 9100 })).toBe(url);
    expect(loadWorkerConfig({ SIM_HOST: host, SIM_PORT: '9100' }).SIM_BASE_URL).toBe(url);
  });

  test('a bad SIM_PORT fails the worker naming the variable', () => {
    expect(() => loadWorkerConfig({ SIM_PORT: 'eighty' })).toThrow(/SIM_PORT/);
  });
});
