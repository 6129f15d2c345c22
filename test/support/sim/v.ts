/**
 * The platform V simulator's test harness, shared by test/unit/sim/v/*: one simulator per test file (reset before
 * each test, V's account faults included), Bearer-authenticated calls to it, content items and model ids.
 */
import { SIM_ACCOUNTS } from '../../../sim/accounts';
import { startReceiver } from '../receiver';
import { SIM_JOB_END_BOUND_MS, simulatorFixture, statsOf } from '../simulator';
import { waitFor } from '../wait-for';

export const AUTH = { Authorization: `Bearer ${SIM_ACCOUNTS.V.apiKey}`, 'Content-Type': 'application/json' };

const fixture = simulatorFixture({ jobDurationMs: 400 }, async (sim) => {
  sim.reset();
  await fetch(`${sim.url}/_sim/v/account-faults`, { method: 'DELETE' });
});
export const sim = fixture.sim;
/** Call once at the top of a test file: a simulator for its tests. */
export const useVSimulator = fixture.use;

export const TASKS = '/api/v3/contents/generations/tasks';

export async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = AUTH,
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}
export const create = (body: unknown) => call('POST', TASKS, body);
export const get = (id: string) => call('GET', `${TASKS}/${id}`);
export const list = (query = '') => call('GET', `${TASKS}${query ? `?${query}` : ''}`);

export const text = (t = 'a cat') => ({ type: 'text', text: t });
export const img = (role?: string, n = 1) => ({
  type: 'image_url',
  image_url: { url: `https://x.test/${n}.png` },
  ...(role ? { role } : {}),
});
export const vid = (n = 1) => ({ type: 'video_url', video_url: { url: `https://x.test/${n}.mp4` }, role: 'reference_video' });
export const aud = (n = 1) => ({ type: 'audio_url', audio_url: { url: `https://x.test/${n}.mp3` }, role: 'reference_audio' });

export const M = {
  pro: 'doubao-seedance-1-0-pro-250528',
  proFast: 'doubao-seedance-1-0-pro-fast-251015',
  liteT2v: 'doubao-seedance-1-0-lite-t2v-250428',
  liteI2v: 'doubao-seedance-1-0-lite-i2v-250428',
  v15: 'doubao-seedance-1-5-pro-251215',
  v20: 'doubao-seedance-2-0-260128',
  v20fast: 'doubao-seedance-2-0-fast-260128',
};

export const statusIs = (id: string, status: string) =>
  waitFor(async () => {
    const r = await get(id);
    return r.json.status === status ? r.json : undefined;
  }, SIM_JOB_END_BOUND_MS);
export const stats = statsOf(sim, 'V');

export const receiver = () => startReceiver('/ark-callback');
