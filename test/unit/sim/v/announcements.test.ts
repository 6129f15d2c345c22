/**
 * sim/v/announcements.ts, over real HTTP: per-task callbacks on every status change, and their faults.
 */
import { sim, TASKS, call, create, text, M, receiver, useVSimulator } from '../../../support/sim/v';
import { waitFor } from '../../../support/wait-for';

useVSimulator();

describe('callbacks', () => {
  const deliveries = async () => (await (await fetch(`${sim.url}/_sim/callbacks?platform=V`)).json()) as any[];

  test('the task object is POSTed on each status change: queued, running, succeeded', async () => {
    const rx = await receiver();
    try {
      const id = (await create({ model: M.pro, content: [text()], callback_url: rx.url })).json.id;
      await waitFor(async () => (rx.got.some((g) => g.body.status === 'succeeded') ? true : undefined));
      expect(rx.got.map((g) => g.body.status)).toEqual(['queued', 'running', 'succeeded']);
      expect(rx.got[2]!.body).toMatchObject({ id, model: M.pro, content: { video_url: expect.stringMatching(/\.mp4$/) } });
    } finally {
      await rx.close();
    }
  });

  test('cancelled and expired are pushed too', async () => {
    const rx = await receiver();
    try {
      const c = (await create({ model: M.pro, content: [text('c [sim:duration=60000]')], callback_url: rx.url })).json.id;
      await call('DELETE', `${TASKS}/${c}`);
      const e = (await create({ model: M.pro, content: [text('e [sim:never][sim:expires=250]')], callback_url: rx.url })).json.id;
      await waitFor(async () => (rx.got.some((g) => g.body.id === e && g.body.status === 'expired') ? true : undefined));
      expect(rx.got.filter((g) => g.body.id === c).map((g) => g.body.status)).toEqual(['queued', 'cancelled']);
      expect(rx.got.filter((g) => g.body.id === e).map((g) => g.body.status)).toEqual(['queued', 'running', 'expired']);
    } finally {
      await rx.close();
    }
  });

  test.each<[string, Record<string, unknown>]>([
    ['drop', { fault: 'drop' }],
    ['duplicate', { fault: 'duplicate' }],
    ['late', { fault: 'late', delayMs: 400 }],
    ['bad-signature', { fault: 'bad-signature' }],
  ])('fault %s on the first callback', async (name, fault) => {
    const rx = await receiver();
    try {
      await call('POST', '/_sim/callback-faults', { platform: 'V', count: 1, ...fault });
      const started = Date.now();
      await create({ model: M.pro, content: [text('cb [sim:duration=60000]')], callback_url: rx.url });
      const [first] = await waitFor(async () => {
        const d = await deliveries();
        return d.length ? d : undefined;
      });
      expect(first.fault).toBe(name);
      if (name === 'drop') {
        await new Promise((r) => setTimeout(r, 300));
        expect(rx.got).toHaveLength(0);
      } else if (name === 'duplicate') {
        await waitFor(async () => (rx.got.length >= 2 ? true : undefined));
        expect(rx.got[0]!.body).toEqual(rx.got[1]!.body);
      } else if (name === 'late') {
        const got = await waitFor(async () => rx.got[0]);
        expect(got.at - started).toBeGreaterThanOrEqual(350);
      } else {
        // Ark does not sign callbacks: nothing to corrupt, the body arrives as the task object.
        const got = await waitFor(async () => rx.got[0]);
        expect(got.body.status).toBe('queued');
      }
    } finally {
      await rx.close();
    }
  });
});
