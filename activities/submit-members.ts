/**
 * What a submit may create its job on: the task's model, or a routed task's members (core/task.ts TaskRoute), each
 * resolved to its catalogue record and its platform's accounts (activities/accounts.ts), in the order the task's
 * route gave them. A submit tries them in that order and moves to the next only when every account of a member is
 * out of the rotation or refused the create in a way that proves no job was made (activities/submit.ts).
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import type { Catalogue, ModelRecord } from '../core/catalogue';
import type { GenerationRequest, RouteMember, ServedBy } from '../core/task';
import { UpstreamError } from '../platforms/upstream-error';
import type { AccountPool } from './accounts';

/** One model the submit may create the job on. */
export interface SubmitMember {
  /** Its place in the task's list (recorded in heartbeats, so a later attempt returns to it). */
  index: number;
  platform: string;
  entry: ModelRecord;
  request: GenerationRequest;
  pool: AccountPool;
}

export const servedByOf = (m: Pick<SubmitMember, 'platform' | 'entry'>): ServedBy => ({ platform: m.platform, model: m.entry.id });

/** A platform this worker does not serve (PLATFORMS_ENABLED differs across the fleet): activities/account-routing.ts adapterFor. */
const isPlatformMissing = (err: unknown) => err instanceof ApplicationFailure && err.type === 'platform_not_configured';

/**
 * The members as this worker can reach them. A member whose platform this worker lacks is left out (another member
 * may serve the task here), unless it is the only one or an earlier attempt may have sent a create to it — then the
 * task is left to a worker that has it (the retryable `platform_not_configured`).
 */
export function resolveMembers(
  catalogue: Catalogue,
  poolFor: (platform: string) => AccountPool,
  members: readonly RouteMember[],
  mayHaveCreated: boolean,
): SubmitMember[] {
  const out: SubmitMember[] = [];
  let missing: unknown;
  members.forEach((m, index) => {
    const entry = catalogue.find(m.request.kind, m.request.model);
    if (!entry || entry.platform !== m.platform) {
      throw new UpstreamError(`Unknown ${m.request.kind} model '${m.request.model}' on platform ${m.platform}`, {
        retryable: false,
        reason: 'invalid_request',
      });
    }
    try {
      out.push({ index, platform: m.platform, entry, request: m.request, pool: poolFor(m.platform) });
    } catch (err) {
      if (!isPlatformMissing(err)) throw err;
      missing ??= err;
      log.warn('A member of the task’s route is on a platform this worker does not serve; it is left out here', {
        platform: m.platform,
        model: m.model,
      });
    }
  });
  if (missing !== undefined && (out.length === 0 || mayHaveCreated)) throw missing;
  return out;
}

/** The members in the order a send tries them: the one an earlier attempt sent to first, then the task's order. */
export function sendOrder(members: readonly SubmitMember[], earlierMember: number | undefined): SubmitMember[] {
  const sticky = members.find((m) => m.index === earlierMember);
  return sticky ? [sticky, ...members.filter((m) => m !== sticky)] : [...members];
}

/**
 * A member none of whose accounts can take the job now: every one is out of the rotation, or refused or throttled
 * this create without making a job. The submit moves on to the next member; with none left, it waits (retryable).
 */
export class NoAccountLeft extends UpstreamError {}
