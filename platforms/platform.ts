/**
 * What one platform folder (platforms/<id>/) gives the gateway: everything the gateway knows about that platform
 * and nothing about another. The registry (platforms/index.ts) lists the definitions; the platform enum, the
 * catalogue, `/v1/models`, the OpenAPI enums, the request schema, the API's enabled platforms and the worker's
 * adapters are all derived from it.
 */
import type { z } from 'zod';
import type { ModelRecord, UnconfirmedFact } from '../core/catalogue';
import type { ModelPrice } from '../pricing/price';
import type { CreatedJob, GenerationRequest, Kind, UpstreamStatus } from '../core/task';
import type { HttpClient } from './http';
import type { GeneralImageField, GeneralVideoField } from './request';
import type { FieldPricingTable } from './field-pricing';

/** What a submit knows about the task it creates a job for. */
export interface SubmitContext {
  /** The gateway's task id (the workflow id): platforms that echo a context (T SessionContext) carry it. */
  taskId: string;
  /**
   * Stable across every attempt of this submit, new for every re-submission and every replay
   * (workflows/dedup-key.ts): the platform's dedup key where it has one (T SessionId).
   */
  dedupKey: string;
  /** When the task's deadline passes (ms since the epoch): a job abandoned by then should stop upstream. */
  deadlineAt: number;
}

export interface ReconcileContext extends SubmitContext {
  /** When the first attempt of this submit started (ms since the epoch): a job it created is not older. */
  since: number;
}

export interface PlatformAdapter {
  /**
   * True when the platform itself refuses to create a second job for a repeated dedup key (T's SessionId):
   * a submit retried after a lost answer then needs no settling time before it reconciles.
   */
  readonly dedupSubmit?: boolean;
  /**
   * Which account of the platform this adapter speaks for, as an operator finds it in the platform's console
   * (T's SubAppId, V's API host, B's endpoint and AccessKey id prefix): never a secret. Named in the error of a
   * task whose job could not be found (activities/submit.ts).
   */
  readonly account?: string;
  /** Creates the upstream job: this is the call that costs money. */
  submit(entry: ModelRecord, request: GenerationRequest, ctx: SubmitContext): Promise<CreatedJob>;
  /**
   * The job an earlier attempt of this same submit created although its answer never arrived (a timeout, a
   * reset connection, a worker that died mid-call), or undefined when there is none. The submit activity asks
   * before it sends a submit again, so a lost answer never becomes a second paid job.
   */
  findSubmitted?(entry: ModelRecord, request: GenerationRequest, ctx: ReconcileContext): Promise<CreatedJob | undefined>;
  poll(kind: Kind, upstreamTaskId: string): Promise<UpstreamStatus>;
  /**
   * Best effort; resolves `true` when the platform accepted the cancel (the job stops before it is billed) and
   * `false` when the job can no longer be cancelled (running or finished: the platform bills it as it would
   * have). A refusal may also be thrown as a final UpstreamError, which the activities' decorator reads as
   * `false`. Absent when the platform has no cancel: the job then runs to its end upstream, is billed, and the
   * gateway stops polling it.
   */
  cancel?(kind: Kind, upstreamTaskId: string): Promise<boolean>;
  /** Present when the platform's announcements are pulled by the gateway rather than pushed to it. */
  events?: PlatformEventQueue;
  /**
   * The platform's own record of the account's jobs, for reconciliation (tasks/reconciliation.ts); absent where
   * the platform offers none the gateway can read job by job (docs/platforms/<x>.md "Reconciliation").
   */
  records?: PlatformRecords;
  /**
   * The platform's own day totals of the account, for reconciliation where it keeps no record job by job (T's AIGC
   * usage statistics, B's resource bill; docs/platforms/<x>.md "Reconciliation"). Absent where it offers none.
   */
  dayTotals?: PlatformDayTotals;
}

/**
 * A quantity both the platform's day totals and the ledger can state: seconds of generated video, images, or
 * money at list price (in `currency`).
 */
export type TotalQuantity = 'video_seconds' | 'images' | 'money';

/** One of the platform's day totals. */
export interface PlatformDayTotal {
  quantity: TotalQuantity;
  /** What the platform counted. */
  value: number;
  /** Money only: the currency the platform states it in. */
  currency?: string;
  /** How many jobs (or bill rows) the platform counted in it, where it says. */
  count?: number;
}

/** Reading the platform's day totals of an account, paced: `pace` is awaited before every request sent. */
export interface PlatformDayTotals {
  /** Names the source in the report (`T AIGC usage statistics`, …). */
  readonly source: string;
  /** The quantities it states: one total each, for the account's UTC day starting at `from` (ms since the epoch). */
  readonly quantities: readonly TotalQuantity[];
  day(from: number, pace: () => Promise<void>): Promise<PlatformDayTotal[]>;
}

/** One job as the platform's own record shows it. */
export interface PlatformJobRecord {
  upstreamTaskId: string;
  /** When the platform created it (ms since the epoch). */
  createdAt: number;
  /** The model as the platform names it. */
  model?: string;
  /** The platform's own status word. */
  status: string;
  /** Whether the platform bills it (it succeeded). */
  billed: boolean;
  /** What the platform reports the job used, where it says. */
  usage: { tokens?: number; seconds?: number; images?: number };
}

/** Reading the platform's record of an account's jobs, paced: `pace` is awaited before every request sent. */
export interface PlatformRecords {
  /** The account's jobs the platform created in [from, to) (ms since the epoch). */
  jobs(from: number, to: number, pace: () => Promise<void>): Promise<PlatformJobRecord[]>;
  /** One job by its id, or null when the platform has no record of it. */
  job(upstreamTaskId: string, pace: () => Promise<void>): Promise<PlatformJobRecord | null>;
}

/**
 * A platform's announcement that a job changed state, reduced to what finds the task: a hint to poll now, never
 * a result (the workflow trusts only its own poll).
 */
export interface UpstreamHint {
  /** The gateway's task id, when the announcement carries it (V's callback URL, T's SessionContext). */
  taskId?: string;
  /** The platform's job id, when that is all it carries (B's account-level events). */
  upstreamTaskId?: string;
  /**
   * The announcement, verified as the platform's own, says that job reached a final state. Believed for one thing
   * only: its slot on the account goes to the next waiting task at once (api/routes/callbacks.ts). The task still
   * polls for its outcome.
   */
  ended?: boolean;
}

/** A queue of announcements the gateway pulls (T's event notification in PULL mode: no public URL needed). */
export interface PlatformEventQueue {
  /** Waits (long poll, bounded) for the next announcements; `handle`s are confirmed once they are handed on. */
  pull(): Promise<{ handle: string; hint?: UpstreamHint }[]>;
  confirm(handles: string[]): Promise<void>;
}

export interface AdapterDeps {
  http: HttpClient;
  /** The clock, for signatures and time windows (tests pin it). */
  now?: () => number;
}

/** How the worker will talk to one platform, decided from its configuration. */
export interface WorkerPlatform {
  /** True when the platform is served by the simulator (no credentials, outside production). */
  simulated: boolean;
  /** Where requests go, for the start-up log (never a secret). */
  endpoint: string;
  /** The platform announces finished jobs to the gateway (callbacks or pulled events), waking their tasks. */
  push?: boolean;
  /**
   * Done once when a worker starts, where the platform's announcements are configured on the account rather than
   * per job (T's ModifyEventConfig, B's PUT /v2/callback). Idempotent. May return what it did, for the log; throws
   * when it must not or could not (the worker then alerts and relies on polling).
   */
  configurePush?(deps: AdapterDeps): Promise<string | void>;
  /** The adapter of the platform's one account (the single-account variables), or of its first listed account. */
  createAdapter(deps: AdapterDeps): PlatformAdapter;
  /**
   * The accounts of PLATFORM_<X>_ACCOUNTS_FILE (platforms/accounts-file.ts): new jobs are spread over them by
   * weight and fail over between them (activities/accounts.ts). Absent: the one account `createAdapter` reaches.
   */
  accounts?: readonly WorkerAccount[];
  /** PLATFORM_<X>_MAX_CONCURRENT: each account's limit where its entry sets none (null: unlimited); undefined: unset. */
  maxConcurrent?: number | null;
}

/** One of a platform's accounts, as the worker reaches it. */
export interface WorkerAccount {
  /** Recorded on the task (`UpstreamAccount`), in logs and metrics: never a secret. */
  id: string;
  weight: number;
  /** Its accounts-file `max_concurrent`: how many jobs it may run at once; undefined: the platform's setting. */
  maxConcurrent?: number;
  /** The public model ids it serves; undefined: all. */
  models?: readonly string[];
  createAdapter(deps: AdapterDeps): PlatformAdapter;
}

export interface PlatformDefinition {
  /** The platform's id: the `platform` of its models, `owned_by` in /v1/models, `GenerationPlatform` in Temporal. */
  readonly id: string;
  /** How messages name it, e.g. "platform T". */
  readonly name: string;
  /** The real product behind it, for operators, e.g. "Tencent Cloud VOD AIGC". */
  readonly product: string;

  /** Spec request fields only this platform carries, by kind (zod shapes; names must not clash across platforms). */
  readonly requestFields: { readonly video: z.ZodRawShape; readonly image: z.ZodRawShape };
  /** What each of `requestFields` does to a task's price (platforms/field-pricing.ts): every one is classified. */
  readonly fieldPricing: FieldPricingTable;
  /** General fields (platforms/request.ts) this platform carries besides `model` and `prompt`, by kind. */
  readonly generalFields: { readonly video: readonly GeneralVideoField[]; readonly image: readonly GeneralImageField[] };

  /** Configuration both the API and the worker read: never a secret (e.g. a models file). */
  readonly publicEnv: z.ZodObject;
  /**
   * What the platform charges per model (platforms/<id>/prices.ts), each price with its currency and the public
   * page it came from; null where no public source confirms one (listed in the platform's unconfirmed facts).
   * PRICES_FILE overrides any of it (pricing/price-table.ts).
   */
  readonly prices?: Readonly<Record<string, ModelPrice | null>>;
  /** The platform's catalogue entries (docs/api.md "Models" → upstream identifiers and limits), with `env`'s overrides. */
  models(env: NodeJS.ProcessEnv): readonly ModelRecord[];
  /**
   * The platform's request rules, after the schema and the general checks (platforms/validation.ts). Throws a
   * RequestRuleError naming the field; returns the request normalised for the adapter.
   */
  validate(entry: ModelRecord, request: GenerationRequest): GenerationRequest;

  /**
   * How many jobs one account of the platform runs at once by default, where its documentation says (T: one AIGC task
   * per account), with the page that says so; absent: unlimited until configured (`max_concurrent`,
   * PLATFORM_<X>_MAX_CONCURRENT) or learned from the platform's refusals (capacity/slots.ts).
   */
  readonly concurrency?: { readonly defaultLimit: number; readonly source: string };

  /** Configuration only the worker reads (endpoints, credentials, tuning). */
  readonly workerEnv: z.ZodObject;
  /**
   * The worker's connection to the platform: real when configured; simulated (at `simBaseUrl`) when not and
   * `simulate` is true; otherwise a ConfigError naming the missing variable.
   */
  worker(env: NodeJS.ProcessEnv, opts: { simulate: boolean; simBaseUrl: string }): WorkerPlatform;

  /**
   * Receiving the platform's pushed announcements at `POST /v1/callbacks/<id>[/<rest>]` (outside Bearer auth):
   * verify them (a per-task token, the platform's signature and expiry) and reduce them to hints. Absent: the
   * platform pushes nothing to the gateway.
   */
  readonly callbacks?: CallbackReceiver;

  /**
   * Parts of docs/api.md rendered from the platform's own data (e.g. B's request field → TaskInput tables), so
   * the page cannot drift from what the adapter sends: `npm run docs:models` rewrites each between its markers,
   * and test/unit/scripts/model-docs.test.ts fails while one is stale.
   */
  readonly docSections?: readonly GeneratedDocSection[];

  /**
   * Facts about the platform's protocol (not one model's) no public source confirms, each with the setting that
   * changes it (the model facts are on their records). Listed in docs/api.md, checked by the
   * conformance run.
   */
  readonly unconfirmed?: readonly UnconfirmedFact[];
}

/** A generated part of docs/api.md: everything from `begin` to `end` (both markers included) is `render()`. */
export interface GeneratedDocSection {
  readonly begin: string;
  readonly end: string;
  render(): string;
}

/** Where the API receives announcements: `POST {CALLBACKS_PATH}/<platform id>[/<rest>]` (api/routes/callbacks.ts). */
export const CALLBACKS_PATH = '/v1/callbacks';

/** The URL a platform is given for its announcements: `{PUBLIC_BASE_URL}/v1/callbacks/<id>[/<segment>…]`. */
export function callbackUrlFor(publicBaseUrl: string, platformId: string, ...segments: string[]): string {
  return [`${publicBaseUrl.replace(/\/+$/, '')}${CALLBACKS_PATH}/${platformId}`, ...segments.map(encodeURIComponent)].join('/');
}

/** One pushed announcement as the API received it. */
export interface CallbackRequest {
  /** Path segments after /v1/callbacks/<platform>/ (V: the task id). */
  rest: string[];
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  /** The body exactly as received (platforms sign the bytes). */
  rawBody: Buffer;
  /** The URL the platform called, as the gateway publishes it (PUBLIC_BASE_URL + path): B signs it. */
  url: string;
  receivedAt: number;
}

export class CallbackRefused extends Error {
  override name = 'CallbackRefused';
  constructor(
    readonly status: 400 | 401 | 403,
    message: string,
    /**
     * With a 401: what the unverified announcement says it is about (its job, and its task where it names one),
     * read without believing it. The API asks Temporal whether that is a job of ours: a platform whose genuine
     * announcements stop verifying names real jobs, a forger does not know any (job ids never leave the gateway).
     */
    readonly claims: UpstreamHint[] = [],
  ) {
    super(message);
  }
}

/** What a body read as JSON claims, or nothing when it is not JSON or `read` finds nothing in it (never throws). */
export function unverifiedClaims(rawBody: Buffer, read: (body: Record<string, unknown>) => UpstreamHint | undefined): UpstreamHint[] {
  try {
    const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
    const hint = read(parsed as Record<string, unknown>);
    return hint ? [hint] : [];
  } catch {
    return [];
  }
}

/**
 * An event body as the platforms that push JSON events send it (T, B): a JSON object. Anything else — not JSON, or
 * JSON that is an array, a string, a number, true or null — is no event of theirs: 400, as the OpenAPI document says.
 */
export function eventObject(rawBody: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new CallbackRefused(400, 'The event is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CallbackRefused(400, 'The event is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** Verifies and reduces one announcement to hints; throws CallbackRefused when it must not be trusted. */
export type ReceiveCallback = (req: CallbackRequest) => UpstreamHint[];

export interface CallbackReceiver {
  /** Settings the API reads to verify announcements (signing keys, the token secret). */
  readonly env: z.ZodObject;
  /** The receiver for these settings: `env` is read once, when the API starts (a bad value is a start-up error). */
  create(env: NodeJS.ProcessEnv): ReceiveCallback;
}
