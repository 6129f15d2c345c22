/**
 * Which answers move a submit to another account (activities/submit-failover.ts `failoverKind`): only those that prove no
 * job was created, as the platforms' own classifiers read them; and what any other failure teaches the submit's state
 * (`createFailure`): the task stays on its member.
 */
import type { PoolAccount } from '../../../activities/accounts';
import { createFailure, failoverKind } from '../../../activities/submit-failover';
import type { SubmitMember } from '../../../activities/submit-members';
import { classifyTError } from '../../../platforms/t/replies';
import { retryable } from '../../../platforms/upstream-error';
import { classifyVError } from '../../../platforms/v/replies';

const v = (status: number, code?: string, headers: Record<string, string> = {}) =>
  classifyVError({ status, headers, body: code ? { error: { code, message: code } } : undefined });

describe('failoverKind', () => {
  test.each([
    ['V 403 AccountOverdueError', v(403, 'AccountOverdueError'), 'refused'],
    ['V 401 AuthenticationError', v(401, 'AuthenticationError'), 'refused'],
    ['V 429 RateLimitExceeded.EndpointRPMExceeded', v(429, 'RateLimitExceeded.EndpointRPMExceeded'), 'throttled'],
    ['T RequestLimitExceeded (inside HTTP 200)', classifyTError('RequestLimitExceeded', 'too many'), 'throttled'],
    ['T AuthFailure.SecretIdNotFound', classifyTError('AuthFailure.SecretIdNotFound', 'no'), 'refused'],
  ])('%s → %s', (_name, err, kind) => {
    expect(failoverKind(err)).toBe(kind);
  });

  test.each([
    ['V 500 (may have created the job)', v(500, 'InternalServiceError')],
    ['V 400 InvalidParameter (the request, not the account)', v(400, 'InvalidParameter')],
    ['T InternalError', classifyTError('InternalError', 'oops')],
    ['no answer (reset, timeout)', retryable('reset', 'ECONNRESET', { noAnswer: true })],
    ['a 429 that never came back whole', retryable('cut', undefined, { httpStatus: 429, noAnswer: true })],
    ['not an UpstreamError', new Error('bug')],
  ])('%s → stays on the account', (_name, err) => {
    expect(failoverKind(err)).toBeUndefined();
  });
});

/** One member with one account, for what a failed create teaches the submit. */
const member = { index: 1 } as SubmitMember;
const account = { id: 'one' } as PoolAccount;

describe('createFailure: fail over only where no job can exist', () => {
  test.each([
    ['refused (V 403 AccountOverdueError)', v(403, 'AccountOverdueError'), 'refused'],
    ['throttled (T RequestLimitExceeded)', classifyTError('RequestLimitExceeded', 'too many'), 'throttled'],
  ])('%s: answered, no job, free to fail over', (_name, err, failover) => {
    expect(createFailure(member, account, err)).toEqual({ failover, events: [{ type: 'answered', account: 'one', member: 1 }] });
  });

  test.each([
    ['V 500', v(500, 'InternalServiceError'), [{ type: 'answered', account: 'one', member: 1 }]],
    ['V 400 InvalidParameter', v(400, 'InvalidParameter'), [{ type: 'answered', account: 'one', member: 1 }]],
    ['no answer (reset)', retryable('reset', 'ECONNRESET', { noAnswer: true }), [{ type: 'answerLost' }]],
    ['not an UpstreamError', new Error('bug'), []],
  ])('%s: the task stays on its member, no failover', (_name, err, before) => {
    expect(createFailure(member, account, err)).toEqual({ events: [...before, { type: 'mayHaveJobOn', member: 1 }] });
  });
});
