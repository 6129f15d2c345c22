/**
 * Platform B — Baidu AI Cloud VOD's AIGC API — simulated from its documentation (docs/platforms/b.md),
 * never from the gateway's code. Paths are host-agnostic (the real host is vod.bj.baidubce.com):
 *
 *   POST /v2/aigc/text_to_video     {"model":"VQ2","modelVQ2TaskInput":{…}}            → 200 {"taskId":"tsk-…"}
 *   POST /v2/aigc/image_to_video    {"model":"VE3.1","modelVE31TaskInput":{…}}         → 200 {"taskId":"tsk-…"}
 *   POST /v2/aigc/image             {"model":"NBP","messages":[…],"n":1,…}             → 200 {"taskId":"tsk-…"}
 *   GET  /v2/tasks/{taskId}         MediaTaskDetail (7-day window; else 404 TaskNotFound)
 *   GET  /v2/tasks                  {isTruncated, marker, nextMarker?, data: MediaTaskBasicInfo[]}
 *   GET  /v2/callback, PUT /v2/callback   CallbackConfig; VIDEO_GENERATE_COMPLETE events POSTed when tasks end
 *
 * Every /v2 request is authenticated with bce-auth-v1 (AK/SK, ./signing.ts). The API-key (Bearer bce-v3/…)
 * variants exist only on v3 paths ("v2接口依旧只支持AKSK鉴权" [OFF Mmmleact0]); the simulator serves the three the
 * page has evidence for: /v3/aigc/text_to_video [OFF table], /v3/aigc/image and /v3/tasks/{id} [3P]. It does not
 * serve /v3/aigc/image_to_video (not in the visible official table, and a 3P gateway refuses API keys for Veo
 * I2V) nor a /v3 list or callback API: those answer 404 like any unknown URI. v3 paths also take bce-auth-v1
 * [INF: one IAM layer].
 *
 * There is no cancel endpoint (a cancel-like URI is an unknown URI: 404 NotFound) and no idempotency: two
 * identical creates are two billed tasks.
 *
 * Control surface (tests): GET/POST /_sim/b/quirks {innerStatusLeads} — the inner-status-first quirk for every job
 * (also per job with the `[sim:b-inner-first]` prompt directive); POST /_sim/b/behaviour {…, billsToday?} — besides
 * what the documents leave open, whether the running day's bill is served (B refuses it; day-totals.ts); GET/POST /_sim/b/echo {echo: "exact" | "defaults" |
 * "known-only"} — how a task echoes its request (not documented: exactly as sent, the default; with the model's
 * defaults filled in for the settings left out; without the fields B ignored); POST /_sim/b/account-faults {code,
 * count?, op?, access_key_id?} — the next `count` requests (default: all, until DELETE) of `op` (submit by default;
 * poll, list, config or *) answer CODE after authentication (B_ACCOUNT_ERRORS in errors.ts: AccessDenied,
 * InvalidAccessKeyId, OptInRequired, QualifyNotPass, Arrears, TooManyRequests); with `access_key_id`, only that
 * account's, by AK/SK or by its API key; DELETE /_sim/b/account-faults. Everything else is the shared /_sim surface.
 *
 * Capacity (sim/capacity.ts): B publishes no limit, so none applies unless one is set (SIM_B_MAX_CONCURRENT, POST
 * /_sim/b/capacity); a create over it is refused as B throttles (renderBFault's 429) [GUESS].
 *
 * Accounts: besides the default one (SIM_ACCOUNTS.B), every AccessKey ID `simbak-<name>` is an account of its own,
 * with its own Secret Access Key, API key and account id (sim/accounts.ts simBAccount). As on Baidu AI Cloud, an
 * account sees only its own tasks (another account's task is 404 TaskNotFound, and absent from its list) and has its
 * own callback configuration.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { SIM_ACCOUNTS, simBAccountOfAccessKey } from '../accounts';
import { AccountFaults } from '../account-faults';
import type { SimHost, SimPlatformModule } from '../host';
import { watchCompletions } from './announcements';
import { resourceMonthBill } from './day-totals';
import { initialBState, registerBControls } from './controls';
import { BError, malformed, sendError } from './errors';
import {
  authenticate,
  callbacksOf,
  createTask,
  listTasks,
  ownerOf,
  readCallbackConfig,
  taskDetail,
  unknownUri,
  writeCallbackConfig,
  type BDeps,
} from './operations';

/** B's paths: /v2/… and /v3/… (V lives under /api/v3, T at /). */
const B_PATH = /^\/v[23]\//;
const CREATE_PATH = /^\/v[23]\/aigc\/(text_to_video|image_to_video|image)\/?$/;

function register(router: Router, host: SimHost): void {
  // host.stats.B is read on every use: /_sim/reset replaces the stats objects.
  const deps: BDeps = { host, state: initialBState(), accountFaults: new AccountFaults() };
  const { state } = deps;
  host.onReset(() => Object.assign(state, initialBState()));
  host.onReset(() => deps.accountFaults.clear());
  watchCompletions(
    host,
    (job) => ({ config: callbacksOf(state, ownerOf(job)), userId: simBAccountOfAccessKey(ownerOf(job))?.userId ?? SIM_ACCOUNTS.B.userId }),
    () => state.behaviour.videoEventSwitch,
  );
  router.post('/v2/aigc/text_to_video', createTask(deps, 'text_to_video', 'v2'));
  router.post('/v2/aigc/image_to_video', createTask(deps, 'image_to_video', 'v2'));
  router.post('/v2/aigc/image', createTask(deps, 'image', 'v2'));
  router.post('/v3/aigc/text_to_video', createTask(deps, 'text_to_video', 'v3'));
  router.post('/v3/aigc/image', createTask(deps, 'image', 'v3'));
  router.get('/v2/tasks/:taskId', taskDetail(deps, 'v2'));
  router.get('/v3/tasks/:taskId', taskDetail(deps, 'v3'));
  router.get('/v2/tasks', (ctx) => listTasks(deps, ctx));
  router.get('/v2/callback', (ctx) => readCallbackConfig(deps, ctx));
  // Baidu AI Cloud billing (billing.baidubce.com): the account's resource bill, for reconciliation (day-totals.ts).
  router.get('/v1/bill/resource/month', (ctx) => resourceMonthBill(deps, ctx));
  router.put('/v2/callback', (ctx) => writeCallbackConfig(deps, ctx));
  registerBControls(router, deps);
  // A task holds its account's slot while PENDING or RUNNING (a limit applies only when one is set: B publishes none).
  host.capacity.track(
    'B',
    {
      accountOf: ownerOf,
      isAccount: (key) => simBAccountOfAccessKey(key) !== undefined,
      endOf: (job, now) => host.jobs.endedAt(job, now),
    },
    host.jobs.all('B'),
  );
  router.all('/v2/*rest', (ctx) => unknownUri(deps, ctx));
  router.all('/v3/*rest', (ctx) => unknownUri(deps, ctx));
}

/**
 * A B request whose JSON body did not parse: authentication first (as every B request), then 400 MalformedJSON
 * (other body-reading failures: 400 InvalidHTTPRequest).
 */
function renderBodyError(ctx: Context, err: unknown, host: SimHost): boolean {
  if (!B_PATH.test(ctx.path)) return false;
  const fromParser = err instanceof SyntaxError || typeof (err as { type?: unknown }).type === 'string';
  if (!fromParser || ctx.request.body !== undefined) return false;
  const stats = host.stats.B;
  if (CREATE_PATH.test(ctx.path)) stats.submitRequests++;
  stats.rejected++;
  const failure = authenticate(ctx, ctx.path.startsWith('/v3/') ? 'v3' : 'v2', host.now());
  if (failure instanceof BError) sendError(ctx, failure);
  else if (err instanceof SyntaxError) sendError(ctx, malformed());
  else sendError(ctx, new BError(400, 'InvalidHTTPRequest', 'There was an error in the body of your HTTP request.'));
  return true;
}

export const platformB: SimPlatformModule = {
  platform: 'B',
  register,
  renderBodyError,
  recordedHeaders: ['x-bce-date', 'x-bce-request-id'],
};
