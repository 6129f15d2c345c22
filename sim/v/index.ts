/**
 * Platform V (Volcengine Ark content-generation tasks, Seedance), simulated from docs/platforms/v.md (its calls
 * and corrections), the official Ark SDK volcengine-ark-runtime 5.0.54 (resources/content_generation/tasks.py and
 * its types) and the Volcengine/BytePlus docs. Base path /api/v3, `Authorization: Bearer <api key>`.
 *
 *   POST   /api/v3/contents/generations/tasks        create → {"id"}
 *   GET    /api/v3/contents/generations/tasks/{id}   the task object (tasks.ts)
 *   GET    /api/v3/contents/generations/tasks        list: page_num, page_size, filter.status, filter.task_ids
 *                                                    (repeated), filter.model, filter.service_tier → {total, items}
 *   DELETE /api/v3/contents/generations/tasks/{id}   queued → cancelled; succeeded/failed/expired → record deleted;
 *                                                    running/cancelled → refused (BytePlus "Cancel or delete a video
 *                                                    generation task" table)
 *
 * Test controls of V's own (besides the core's /_sim endpoints and prompt directives):
 *   [sim:reject=CODE]          the create answers CODE (ACCOUNT_ERRORS in errors.ts: QuotaExceeded, SetLimitExceeded,
 *                              InvalidEndpoint.ClosedEndpoint, AccountOverdueError, ModelNotOpen…) and creates nothing
 *   [sim:submit=429:CODE xN]   the first N creates of the prompt answer 429 CODE (any of Ark's 429 codes in
 *                              errors.ts, Retry-After where its table says it may be sent), then the job is created
 *   [sim:task-error=CODE]      the task fails with error.code CODE
 *   [sim:expires=MS]           the task counts as past execution_expires_after MS ms after creation (→ expired)
 *   POST /_sim/v/account-faults {code, count?, op?, api_key?}   the next `count` requests (default: all, until
 *                              DELETE) of `op` (submit by default; poll, list, cancel or *) answer CODE; with
 *                              `api_key`, only that account's requests (one overdue or throttled account of several)
 *
 * Capacity (sim/capacity.ts): over its account's concurrency (none by default; SIM_V_MAX_CONCURRENT, POST
 * /_sim/v/capacity) a create answers 429 InflightBatchsizeExceeded and creates nothing.
 *
 * Accounts: besides the default key, every `sim-v-key-<name>` is an account of its own (sim/accounts.ts); a task is
 * read, listed and cancelled only through the account that created it (another account gets 404, as for a task
 * that does not exist).
 *   DELETE /_sim/v/account-faults
 *   POST /_sim/v/endpoints {endpoints?: {"ep-…": "<model id>"}, listedModel?: "endpoint" | "model"}   the account's
 *                              inference endpoints (creates may name one instead of a model), and what a task made
 *                              through one shows as `model` (and matches in filter.model): the endpoint id
 *                              (default) or the model's name — not documented; `{}` restores none and the default
 *   POST /_sim/v/behaviour {modelFacts?: {"<model id>": {modes?, maxReferenceImages?, maxReferenceVideos?,
 *                              maxReferenceAudios?}}}   the model facts no source confirms (2.0's first+last frame and
 *                              reference counts), laid over models.ts; `{}` restores the documented ones
 *   POST /_sim/v/usage {task_id, completion_tokens}   the task object reports these tokens from now on (a platform's
 *                              record that differs from what the client was told: reconciliation's usage difference)
 */
import type Router from '@koa/router';
import type { SimHost, SimPlatformModule } from '../host';
import { VCallbacks } from './announcements';
import { registerVControls } from './controls';
import { isSimVApiKey } from '../accounts';
import { cancelOrDeleteTask, createTask, getTask, initialVState, listTasks, ownerOf, type VDeps } from './operations';
import { expiresAt, vStatus } from './tasks';

export { V_MODELS } from './models';
export { validateVCreate } from './validation';
export { ACCOUNT_ERRORS } from './errors';

const BASE = '/api/v3/contents/generations/tasks';

export function registerPlatformV(router: Router, host: SimHost): void {
  // host.stats.V is read at each use: the simulator's reset replaces the object.
  const deps: VDeps = { host, state: initialVState(), callbacks: new VCallbacks(host) };
  // The simulator's own reset (POST /_sim/reset) clears V's account faults, endpoints and model facts too.
  host.onReset(() => Object.assign(deps.state, initialVState()));
  router.post(BASE, (ctx) => createTask(deps, ctx));
  router.get(`${BASE}/:id`, (ctx) => getTask(deps, ctx));
  router.get(BASE, (ctx) => listTasks(deps, ctx));
  router.delete(`${BASE}/:id`, (ctx) => cancelOrDeleteTask(deps, ctx));
  registerVControls(router, deps.state, host);
  // A task holds its account's slot until it ends: succeeded, failed, cancelled, expired (or deleted, which only a
  // finished task can be).
  host.capacity.track(
    'V',
    {
      accountOf: ownerOf,
      isAccount: isSimVApiKey,
      endOf: (job, now) => (vStatus(host, job, now) === 'expired' ? expiresAt(job) : host.jobs.endedAt(job, now)),
    },
    host.jobs.all('V'),
  );
}

export const platformV: SimPlatformModule = { platform: 'V', register: registerPlatformV };
