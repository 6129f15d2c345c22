/**
 * Platform B — Baidu AI Cloud VOD's AIGC API — simulated from its documentation (shared/platforms/b-baidu-vod.md),
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
 * (also per job with the `[sim:b-inner-first]` prompt directive); GET/POST /_sim/b/echo {echo: "exact" | "defaults" |
 * "known-only"} — how a task echoes its request (not documented: exactly as sent, the default; with the model's
 * defaults filled in for the settings left out; without the fields B ignored); POST /_sim/b/account-faults {code,
 * count?, op?, access_key_id?} — the next `count` requests (default: all, until DELETE) of `op` (submit by default;
 * poll, list, config or *) answer CODE after authentication (B_ACCOUNT_ERRORS in errors.ts: AccessDenied,
 * InvalidAccessKeyId, OptInRequired, QualifyNotPass, Arrears, TooManyRequests); with `access_key_id`, only that
 * account's, by AK/SK or by its API key; DELETE /_sim/b/account-faults. Everything else is the shared /_sim surface.
 *
 * Accounts: besides the default one (SIM_ACCOUNTS.B), every AccessKey ID `simbak-<name>` is an account of its own,
 * with its own Secret Access Key, API key and account id (sim/accounts.ts simBAccount). As on Baidu AI Cloud, an
 * account sees only its own tasks (another account's task is 404 TaskNotFound, and absent from its list) and has its
 * own callback configuration.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { SIM_ACCOUNTS, simBAccountOfAccessKey, simBAccountOfApiKey, type SimBAccount } from '../accounts';
import { AccountFaults, readAccountFault } from '../account-faults';
import { parseDirectives } from '../directives';
import type { SimHost, SimOp, SimPlatformModule } from '../host';
import type { SimJob } from '../jobs';
import { verifyBceRequest } from './signing';
import {
  emptyCallbackConfig,
  renderCallbackConfig,
  updateCallbackConfig,
  VIDEO_EVENT_SWITCH,
  watchCompletions,
  type CallbackConfig,
} from './announcements';
import { accountError, B_ACCOUNT_ERRORS, BError, malformed, notFound, renderBFault, sendError, sendJson, taskNotFound } from './errors';
import { newTaskId } from './ids';
import { imageInputType, imagePromptOf, validateImageCreate } from './image';
import { bMeta, listTasks, queryable, renderTaskDetail, type BJobMeta } from './tasks';
import { VIDEO_INPUT_TYPE, videoPromptOf, validateVideoCreate } from './validation';
import { taskInputKey, type VideoEndpoint } from './models';

type ApiVersion = 'v2' | 'v3';
type CreateEndpoint = VideoEndpoint | 'image';

/** B's paths: /v2/… and /v3/… (V lives under /api/v3, T at /). */
const B_PATH = /^\/v[23]\//;
const CREATE_PATH = /^\/v[23]\/aigc\/(text_to_video|image_to_video|image)\/?$/;
const INNER_FIRST_DIRECTIVE = /\[sim:b-inner-first\]/;

function headerRecord(ctx: Context): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

/**
 * Authenticates a request: bce-auth-v1 on every path; `Bearer <API key>` only on v3. Unknown API key → 401
 * [GUESS: the page says a wrong key gives 400/401]. Returns the account the credentials belong to, or the refusal.
 */
function authenticate(ctx: Context, version: ApiVersion, now: number): SimBAccount | BError {
  const authorization = ctx.get('Authorization') || undefined;
  if (version === 'v3' && authorization?.startsWith('Bearer ')) {
    const key = authorization.slice('Bearer '.length).trim();
    if (!key.startsWith('bce-v3/'))
      return new BError(400, 'InvalidHTTPAuthHeader', 'The Authorization header you provided is invalid: an API key starts with bce-v3/.');
    return simBAccountOfApiKey(key) ?? new BError(401, 'InvalidAccessKeyId', 'The API key you provided is not valid.');
  }
  let account: SimBAccount | undefined;
  const result = verifyBceRequest(
    { method: ctx.method, rawPath: ctx.path, rawQuery: ctx.querystring, headers: headerRecord(ctx), authorization },
    {
      secretFor: (ak) => {
        account = simBAccountOfAccessKey(ak);
        return account?.secretAccessKey;
      },
      now,
    },
  );
  if (!result.ok) return new BError(result.failure.status, result.failure.code, result.failure.message);
  // A verified signature had its AK's secret: secretFor found the account.
  return account as SimBAccount;
}

/** The AccessKey ID of the account that created a job: jobs from before accounts belong to the default account. */
const ownerOf = (job: SimJob) => bMeta(job).owner ?? SIM_ACCOUNTS.B.accessKeyId;

/**
 * A POST/PUT body the JSON body parser left alone (no JSON content type) is read and parsed here: B takes the body
 * as JSON whatever the content type says [GUESS]; anything that does not parse is MalformedJSON.
 */
async function readUntypedBody(ctx: Context): Promise<void> {
  if (ctx.request.rawBody !== undefined || !['POST', 'PUT'].includes(ctx.method)) return;
  if (!ctx.request.length && ctx.get('transfer-encoding') === '') return;
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  ctx.request.rawBody = text;
  if (text.trim() === '') return;
  try {
    ctx.request.body = JSON.parse(text) as unknown;
  } catch {
    ctx.state.bMalformed = true;
    ctx.request.body = undefined;
  }
}

type EchoMode = 'exact' | 'defaults' | 'known-only';

interface BState {
  /** Each account's callback configuration, by its AccessKey ID (an account never configured: the empty one). */
  callbacks: Map<string, CallbackConfig>;
  quirks: { innerStatusLeads: boolean };
  echo: EchoMode;
  /**
   * What the documents leave open besides the echo (/_sim/b/behaviour): the video-generation event switch's name
   * (announcements.ts), and whether a task created through /v3 is read and listed through /v2 — the API-key page says
   * v3 requests equal v2's, not that their tasks are one list [OFF Mmmleact0]; default: they are.
   */
  behaviour: { videoEventSwitch: string; v3TasksOnV2: boolean; fieldNames: Record<string, Record<string, string>> };
}

/** `fieldNames`: TaskInput names no page documents (Kling, PixVerse, Hailuo), renamed per family by a test (validation.ts). */
const DEFAULT_B_BEHAVIOUR: BState['behaviour'] = { videoEventSwitch: VIDEO_EVENT_SWITCH, v3TasksOnV2: true, fieldNames: {} };

function fieldNamesOf(value: unknown): Record<string, Record<string, string>> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([family, names]) => [
      family,
      Object.fromEntries(
        Object.entries(typeof names === 'object' && names !== null ? names : {}).filter(
          (e): e is [string, string] => typeof e[1] === 'string',
        ),
      ),
    ]),
  );
}

/** `body` without the dotted paths B ignored (FieldReport.ignored: top-level keys and TaskInput members). */
function withoutIgnored(body: unknown, ignored: readonly string[]): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  for (const path of ignored) {
    const [first, second] = path.split('.');
    if (second === undefined) delete copy[first!];
    else if (typeof copy[first!] === 'object' && copy[first!] !== null) delete (copy[first!] as Record<string, unknown>)[second];
  }
  return copy;
}

function register(router: Router, host: SimHost): void {
  // Read on every use: /_sim/reset replaces the stats objects.
  const stats = () => host.stats.B;
  const state: BState = { callbacks: new Map(), quirks: { innerStatusLeads: false }, echo: 'exact', behaviour: { ...DEFAULT_B_BEHAVIOUR } };
  host.onReset(() => {
    state.behaviour = { ...DEFAULT_B_BEHAVIOUR };
    state.callbacks = new Map();
    state.quirks = { innerStatusLeads: false };
    state.echo = 'exact';
  });
  const accountFaults = new AccountFaults();
  host.onReset(() => accountFaults.clear());
  const callbacksOf = (accessKeyId: string) => state.callbacks.get(accessKeyId) ?? emptyCallbackConfig(state.behaviour.videoEventSwitch);
  watchCompletions(
    host,
    (job) => ({ config: callbacksOf(ownerOf(job)), userId: simBAccountOfAccessKey(ownerOf(job))?.userId ?? SIM_ACCOUNTS.B.userId }),
    () => state.behaviour.videoEventSwitch,
  );

  /**
   * Records and faults the request, authenticates it, then applies the account's faults; the account, or undefined
   * when the request has been answered.
   */
  const admit = (
    ctx: Context,
    op: SimOp,
    version: ApiVersion,
    promptFault?: ReturnType<SimHost['promptFault']>,
  ): SimBAccount | undefined => {
    if (host.intercept(ctx, 'B', op, renderBFault, promptFault)) return undefined;
    const account = authenticate(ctx, version, host.now());
    const refusal = account instanceof BError ? account : ctx.state.bMalformed ? malformed() : accountFaults.take(account.accessKeyId, op);
    if (refusal !== undefined) {
      stats().rejected++;
      sendError(ctx, typeof refusal === 'string' ? accountError(refusal) : refusal);
      return undefined;
    }
    return account as SimBAccount;
  };

  const refuse = (ctx: Context, err: unknown) => {
    if (!(err instanceof BError)) throw err;
    stats().rejected++;
    sendError(ctx, err);
  };

  function create(endpoint: CreateEndpoint, version: ApiVersion) {
    return async (ctx: Context) => {
      await readUntypedBody(ctx);
      stats().submitRequests++;
      const body = ctx.request.body as unknown;
      const prompt = endpoint === 'image' ? imagePromptOf(body) : videoPromptOf(body);
      const directives = parseDirectives(prompt);
      const account = admit(ctx, 'submit', version, host.promptFault(`B-submit:${prompt}`, directives.submitFault));
      if (!account) return;

      let meta: Omit<BJobMeta, 'baseUrl' | 'apiVersion'>;
      let model: string;
      let outputs = 1;
      try {
        if (endpoint === 'image') {
          const v = validateImageCreate(body);
          const t = imageInputType(v.referenceImages);
          meta = { endpoint, inputType: t.label, requestKey: t.requestKey, request: body, fields: v.fields, output: v.output };
          model = v.model.code;
          outputs = v.output.n;
        } else {
          const v = validateVideoCreate(endpoint, body, state.behaviour.fieldNames);
          const t = VIDEO_INPUT_TYPE[endpoint];
          meta = {
            endpoint,
            inputType: t.label,
            requestKey: t.requestKey,
            request: body,
            fields: v.fields,
            output: v.output,
            mode: v.mode,
          };
          if (state.echo === 'defaults' && Object.keys(v.defaults).length > 0) {
            const key = taskInputKey(v.model.code);
            const sent = body as Record<string, Record<string, unknown>>;
            meta.echo = { ...sent, [key]: { ...sent[key], ...v.defaults } };
          }
          model = v.model.code;
        }
      } catch (err) {
        refuse(ctx, err);
        return;
      }
      if (state.echo === 'known-only' && meta.fields.ignored.length > 0) meta.echo = withoutIgnored(body, meta.fields.ignored);
      const clientRequestId = ctx.get('x-bce-request-id') || undefined;
      const fullMeta: BJobMeta = {
        ...meta,
        apiVersion: version,
        baseUrl: host.publicUrl(ctx),
        owner: account.accessKeyId,
        ...(INNER_FIRST_DIRECTIVE.test(prompt) ? { innerStatusLeads: true } : {}),
        ...(clientRequestId ? { clientRequestId } : {}),
      };
      // No dedup key: B has no idempotency; every accepted create is a new, billed task.
      const job = host.jobs.create(
        {
          platform: 'B',
          kind: endpoint === 'image' ? 'image' : 'video',
          model,
          directives,
          outputs,
          meta: fullMeta as unknown as Record<string, unknown>,
        },
        'tsk-',
        newTaskId(),
      );
      stats().jobsCreated++;
      sendJson(ctx, { taskId: job.id });
    };
  }

  router.post('/v2/aigc/text_to_video', create('text_to_video', 'v2'));
  router.post('/v2/aigc/image_to_video', create('image_to_video', 'v2'));
  router.post('/v2/aigc/image', create('image', 'v2'));
  router.post('/v3/aigc/text_to_video', create('text_to_video', 'v3'));
  router.post('/v3/aigc/image', create('image', 'v3'));

  /** A v3 task is read through v2 unless a test says otherwise (/_sim/b/behaviour v3TasksOnV2). */
  const visibleOn = (job: SimJob, version: ApiVersion) => version === 'v3' || state.behaviour.v3TasksOnV2 || bMeta(job).apiVersion !== 'v3';

  function detail(version: ApiVersion) {
    return (ctx: Context) => {
      stats().polls++;
      const id = ctx.params.taskId ?? '';
      const found = host.jobs.get(id);
      const job = found && queryable(host, found) && visibleOn(found, version) ? found : undefined;
      let pollFault;
      if (job && job.pollFaultsLeft > 0) {
        job.pollFaultsLeft--;
        host.jobs.changed();
        pollFault = job.directives.pollFault;
      }
      const account = admit(ctx, 'poll', version, pollFault);
      if (!account) return;
      // Another account's task is, to this one, a task that does not exist.
      if (!job || ownerOf(job) !== account.accessKeyId) {
        refuse(ctx, taskNotFound(id));
        return;
      }
      const quirk = state.quirks.innerStatusLeads || (job.meta as unknown as BJobMeta).innerStatusLeads === true;
      sendJson(ctx, renderTaskDetail(host, ctx, job, quirk));
    };
  }

  router.get('/v2/tasks/:taskId', detail('v2'));
  router.get('/v3/tasks/:taskId', detail('v3'));

  router.get('/v2/tasks', (ctx) => {
    stats().lists++;
    const account = admit(ctx, 'list', 'v2');
    if (!account) return;
    try {
      sendJson(
        ctx,
        listTasks(host, ctx.query, (job) => visibleOn(job, 'v2') && ownerOf(job) === account.accessKeyId),
      );
    } catch (err) {
      refuse(ctx, err);
    }
  });

  router.get('/v2/callback', (ctx) => {
    const account = admit(ctx, 'config', 'v2');
    if (account) sendJson(ctx, renderCallbackConfig(callbacksOf(account.accessKeyId)));
  });

  router.put('/v2/callback', async (ctx) => {
    await readUntypedBody(ctx);
    const account = admit(ctx, 'config', 'v2');
    if (!account) return;
    try {
      state.callbacks.set(account.accessKeyId, updateCallbackConfig(callbacksOf(account.accessKeyId), ctx.request.body ?? {}));
    } catch (err) {
      refuse(ctx, err);
      return;
    }
    // "返回: 无" — an empty 200.
    sendJson(ctx, '');
  });

  // ---------------------------------------------------------------- control (tests)
  router.get('/_sim/b/quirks', (ctx) => {
    ctx.body = state.quirks;
  });
  router.get('/_sim/b/echo', (ctx) => {
    ctx.body = { echo: state.echo };
  });
  router.post('/_sim/b/echo', (ctx) => {
    const b = ctx.request.body as { echo?: unknown } | undefined;
    state.echo = b?.echo === 'defaults' || b?.echo === 'known-only' ? b.echo : 'exact';
    ctx.body = { echo: state.echo };
  });
  /** Body: {videoEventSwitch?, v3TasksOnV2?, fieldNames?}; `{}` restores the defaults. A new switch name starts a new, empty configuration. */
  router.get('/_sim/b/behaviour', (ctx) => {
    ctx.body = state.behaviour;
  });
  router.post('/_sim/b/behaviour', (ctx) => {
    const b = (ctx.request.body ?? {}) as { videoEventSwitch?: unknown; v3TasksOnV2?: unknown; fieldNames?: unknown };
    const name =
      typeof b.videoEventSwitch === 'string' && /^enable[A-Za-z]+Event$/.test(b.videoEventSwitch)
        ? b.videoEventSwitch
        : DEFAULT_B_BEHAVIOUR.videoEventSwitch;
    // The configurations hold the switches by name: under a new name every account starts afresh.
    if (state.behaviour.videoEventSwitch !== name) state.callbacks = new Map();
    state.behaviour = {
      videoEventSwitch: name,
      v3TasksOnV2: typeof b.v3TasksOnV2 === 'boolean' ? b.v3TasksOnV2 : DEFAULT_B_BEHAVIOUR.v3TasksOnV2,
      fieldNames: fieldNamesOf(b.fieldNames),
    };
    ctx.body = state.behaviour;
  });
  /** Body: {code, count?, op?, access_key_id?} (see the header). */
  router.post('/_sim/b/account-faults', (ctx) => {
    const fault = readAccountFault(ctx, 'access_key_id', (ak) => simBAccountOfAccessKey(ak) !== undefined, Object.keys(B_ACCOUNT_ERRORS), [
      'submit',
      'poll',
      'list',
      'config',
    ]);
    if (fault) ctx.body = { ok: true, active: accountFaults.add(fault) };
  });
  router.delete('/_sim/b/account-faults', (ctx) => {
    accountFaults.clear();
    ctx.body = { ok: true };
  });
  router.post('/_sim/b/quirks', (ctx) => {
    const b = ctx.request.body as { innerStatusLeads?: unknown } | undefined;
    if (typeof b?.innerStatusLeads === 'boolean') state.quirks.innerStatusLeads = b.innerStatusLeads;
    ctx.body = state.quirks;
  });

  // ---------------------------------------------------------------- anything else under /v2, /v3: unknown URI
  const unknown = (ctx: Context) => {
    // A cancel attempt is recorded (op "cancel"), so a test can see a client trying; the answer is still 404.
    if (ctx.method === 'DELETE' || /cancel|stop|abort|terminate/i.test(ctx.path)) {
      stats().cancels++;
      if (host.intercept(ctx, 'B', 'cancel', renderBFault)) return;
    }
    sendError(ctx, notFound());
  };
  router.all('/v2/*rest', unknown);
  router.all('/v3/*rest', unknown);
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

export const platformB: SimPlatformModule = { platform: 'B', register, renderBodyError };
