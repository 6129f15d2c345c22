/**
 * platforms/v/announcements.ts: V's per-task callbacks. The token proves the URL, and only an end (or an
 * unreadable status) wakes the task.
 */
import { CallbackRefused } from '../../../../platforms/platform';
import { callbackToken, vCallbackReceiver } from '../../../../platforms/v/announcements';
import { NOW } from '../../../support/platforms/v';

describe('V callbacks: the token proves the URL, and only an end (or an unreadable status) wakes the task', () => {
  const SECRET = 'callback-secret-for-tests-0123456789abcdef';
  const env = { CALLBACK_SECRET: SECRET };
  const receiveCallback = vCallbackReceiver.create(env);
  const receive = (body: string, token = callbackToken(SECRET, 'task_1')) =>
    receiveCallback({
      rest: ['task_1'],
      query: { token },
      headers: {},
      rawBody: Buffer.from(body),
      url: 'http://gw/v1/callbacks/V/task_1',
      receivedAt: NOW,
    });

  test.each(['succeeded', 'failed', 'expired', 'cancelled'])('status %s → one hint for the task, saying its job ended', (status) => {
    expect(receive(JSON.stringify({ id: 'cgt-1', status }))).toEqual([{ taskId: 'task_1', upstreamTaskId: 'cgt-1', ended: true }]);
  });

  test('a status it does not know → one hint for the task, claiming no end (its slot waits for the poll)', () => {
    expect(receive(JSON.stringify({ id: 'cgt-1', status: 'some-future-status' }))).toEqual([{ taskId: 'task_1', upstreamTaskId: 'cgt-1' }]);
  });

  test.each(['queued', 'running'])('status %s → acknowledged, nothing to wake (a poll would learn nothing)', (status) => {
    expect(receive(JSON.stringify({ id: 'cgt-1', status }))).toEqual([]);
  });

  test('a body that is not JSON still wakes the task: when in doubt, one extra poll', () => {
    expect(receive('not json')).toEqual([{ taskId: 'task_1' }]);
  });

  test('a token for another task is refused, whatever the body says', () => {
    expect(() => receive(JSON.stringify({ status: 'succeeded' }), callbackToken(SECRET, 'task_2'))).toThrow(CallbackRefused);
  });
});

describe('a refused V callback says which task and job it claims (unverified), for the API to check', () => {
  const receiveCallback = vCallbackReceiver.create({ CALLBACK_SECRET: 'callback-secret-for-tests-0123456789abcdef' });
  const refused = (body: string) => {
    try {
      receiveCallback({
        rest: ['task_1'],
        query: { token: 'forged' },
        headers: {},
        rawBody: Buffer.from(body),
        url: 'http://gw/v1/callbacks/V/task_1',
        receivedAt: NOW,
      });
    } catch (err) {
      return err as CallbackRefused;
    }
    throw new Error('not refused');
  };

  test('the task of the URL with the job of the body; nothing without a job id', () => {
    expect(refused(JSON.stringify({ id: 'cgt-1', status: 'succeeded' }))).toMatchObject({
      status: 401,
      claims: [{ taskId: 'task_1', upstreamTaskId: 'cgt-1' }],
    });
    expect(refused('{"status":"succeeded"}').claims).toEqual([]);
    expect(refused('not json').claims).toEqual([]);
  });
});
