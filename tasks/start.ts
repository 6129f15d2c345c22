/**
 * How a task starts: the one path every door calls (POST /v1/{videos,images}/generations and their async forms,
 * POST /v1/videos as JSON or as a form), with the request already decoded into the general form (strings as the
 * client meant them). In order, each step refusing with a TaskRefused that names the field, before anything is
 * paid for:
 *
 * 1. validate — the text, the schema, the model's rules (tasks/validation.ts); input URLs against the operator's
 *    private-origin allowlist; a route's name (tasks/routing.ts): each member's rules, those that cannot take the
 *    request skipped, the first member's refusal when none can;
 * 2. allowlist — the key may use the model (a route: its name); a route's members its budget cannot count are
 *    skipped, and the others ordered by the route's policy;
 * 3. webhook — where the task's events go (TaskWebhooks: webhooks/targets.ts);
 * 4. reserve — the estimate against the key's budget, under the task's id, with the request's fingerprint
 *    (tasks/task-ledger.ts; a route: its dearest member's): over budget or unpriced is refused here; an entry of the id that exists means a
 *    repeated Idempotency-Key, and only the request whose fingerprint made the reservation is ever started;
 * 5. limits — the key's cap on tasks in flight (tasks/inflight.ts);
 * 6. prepare — the door's own work for an accepted task (storing an uploaded image its request links to);
 * 7. start or replay — the workflow is started under the task's id (Temporal refuses a second one under it), or a
 *    repeated request gets the task its first request started;
 * 8. release on refusal — a limit, a failed preparation or a start that did not happen gives the reservation back
 *    (a start that may have happened keeps it: the ledger's sweep settles it from the task once it is known).
 */
import type { Catalogue, ModelRecord } from '../core/catalogue';
import type { GenerationRequest, Kind, ServedBy, TaskAsked } from '../core/task';
import type { ValidatedRequest } from '../platforms/validation';
import type { WebhookTarget } from '../core/webhooks';
import type { ApiKey } from '../keys/api-keys';
import type { InputUrlPolicy } from '../platforms/request';
import { idempotentTaskId, newTaskId } from './idempotency';
import type { InflightLimits } from './inflight';
import type { TaskRecord } from './record';
import { TaskRefused } from './refusal';
import type { TaskLedger } from './task-ledger';
import { isAlreadyStarted, type TaskService } from './task-service';
import { taskRouteOf, type RoutedRequest, type RouteValidation, type SkippedMember, type TaskRouting } from './routing';
import { parseRequestBody, validateForModel } from './validation';

/** A request's webhook fields as sent: `webhook_url` and `webhook_events`. */
export interface WebhookFields {
  url?: unknown;
  events?: unknown;
}

/**
 * Where a task's events go (webhooks/targets.ts webhookTargets): the webhook fields taken out of the body before
 * the generation fields are validated (no platform ever sees them), and checked after the model is allowed
 * (undefined: no URL in the request nor the key's default; a refusal is a TaskRefused naming the field).
 */
export interface TaskWebhooks {
  split(body: unknown): { body: unknown } & WebhookFields;
  target(fields: WebhookFields, key: ApiKey, linkBase: string): Promise<WebhookTarget | undefined>;
}

export interface StartRequest {
  /** Which general form the request is read as: docs/api.md "Video requests" or "Image requests". */
  kind: Kind;
  /** The request in the general form, as the client sent it (its webhook fields included). */
  body: unknown;
  /** The fingerprint of what the client sent, made by its door (tasks/idempotency.ts requestFingerprint). */
  fingerprint: string;
  /** The request's Idempotency-Key (tasks/idempotency.ts readIdempotencyKey); absent: a new task every time. */
  idempotencyKey?: string;
  /** The origin the client reached the gateway at: links in the task's webhook payloads are based on it. */
  origin: string;
  /** Origins an input URL may name although they are private: the gateway's own (a link to an upload it keeps). */
  ownOrigins?: readonly string[];
  /**
   * The door's name for each general field its own fields became (the Videos API: `duration` → `seconds`, `ratio`
   * and `resolution` → `size`): a refusal of one names the door's field (TaskRefused.inDoorTerms). Absent: the door
   * speaks the general form.
   */
  fieldNames?: Readonly<Record<string, string>>;
  /**
   * General fields the door filled in as a default of its translation rather than as asked (the Videos API's 16:9
   * `ratio` of a landscape size): a model that takes no such field at all goes without it instead of refusing.
   */
  impliedFields?: readonly string[];
  /** What a video request asked in its door's own terms (the Videos API's size; `via: 'videos'`). */
  asked?: Pick<TaskAsked, 'size' | 'via'>;
  /** The door's work for an accepted task, done before its workflow starts (keeping an uploaded image). */
  prepare?: () => Promise<void>;
}

/**
 * What every outcome says: the model the client named (`model`: a catalogue model's id, or a route's name), the
 * catalogue model and request the task is priced at (a route's dearest member), and a route's skipped members.
 */
interface Started {
  taskId: string;
  model: string;
  entry: ModelRecord;
  request: GenerationRequest;
  /** A routed task's members that can serve it, in the order its submit tries them. */
  candidates?: ServedBy[];
  /** A routed task's members that cannot serve it, and why (the doors say them only when the client asks). */
  skipped?: SkippedMember[];
}

/** A task started by this request, or the task an earlier request under the same Idempotency-Key started. */
export type StartOutcome = (Started & { replayed: false }) | (Started & { replayed: true; record: TaskRecord });

export interface TaskStarterDeps {
  catalogue: Catalogue;
  enabledPlatforms: ReadonlySet<string>;
  /** INPUT_URL_ALLOW_PRIVATE_ORIGINS: private origins input URLs may name (a test setup's local platform). */
  inputUrlAllowPrivateOrigins: ReadonlySet<string>;
  webhooks: TaskWebhooks;
  tasks: Pick<TaskService, 'start' | 'readWithFingerprint' | 'exists'>;
  /** Budgets and each task's ledger entry (DATABASE_URL); absent: no reservation, Temporal alone keeps ids unique. */
  ledger?: TaskLedger;
  inflight: InflightLimits;
  /** The deployment's routes (tasks/routing.ts); absent: no model name is a route. */
  routing?: TaskRouting;
  /** Each task this path started (the API's metrics): its catalogue model (a route's dearest member) and the name it was asked by. */
  onStarted?: (entry: ModelRecord, model: string) => void;
  /**
   * How long a repeated request waits for the task its first request is starting at the same moment, before it is
   * told to retry (`idempotency_key_in_use`). Default 3 s.
   */
  replayWaitMs?: number;
}

/** A task about to start: what validation made of the request, and where it goes. */
interface Accepted extends Started {
  fingerprint: string;
  /** The origin the request came in on: the base of the links in a replayed task's record. */
  origin: string;
  /** A routed task's members in the order its submit tries them. */
  routed?: RoutedRequest;
  webhook?: WebhookTarget;
  asked?: Pick<TaskAsked, 'size' | 'via'>;
}

const REPLAY_POLL_MS = 100;

/** What an outcome says of an accepted task. */
const started = (task: Accepted): Started => ({
  taskId: task.taskId,
  model: task.model,
  entry: task.entry,
  request: task.request,
  ...(task.candidates ? { candidates: task.candidates } : {}),
  ...(task.skipped ? { skipped: task.skipped } : {}),
});

const reusedKey = (taskId: string) =>
  new TaskRefused('conflict', 'This Idempotency-Key was already used with a different request body', {
    param: 'Idempotency-Key',
    code: 'idempotency_key_reused',
    taskId,
  });

const keyInUse = (taskId: string) =>
  new TaskRefused('conflict', 'A request with this Idempotency-Key is being started at this moment; retry it shortly to get its task', {
    param: 'Idempotency-Key',
    code: 'idempotency_key_in_use',
    taskId,
    retryAfterSeconds: 1,
  });

/** The field a refusal is about when it is one the door only implied and the model takes no such field at all. */
function impliedRefused(err: unknown, body: unknown, implied: readonly string[] | undefined): string | undefined {
  if (!(err instanceof TaskRefused) || err.details.code !== 'unsupported_parameter') return undefined;
  const param = err.details.param;
  return param !== undefined && implied?.includes(param) && typeof body === 'object' && body !== null && param in body ? param : undefined;
}

export class TaskStarter {
  constructor(private readonly deps: TaskStarterDeps) {}

  async start(key: ApiKey, req: StartRequest): Promise<StartOutcome> {
    const task = await this.accept(key, req);
    if (this.deps.ledger) {
      const reservation = await this.deps.ledger.reserve(
        key,
        task.taskId,
        task.fingerprint,
        task.entry,
        task.request,
        task.routed?.route.name,
      );
      if (!reservation.reserved) return this.replay(key, task, reservation.existingRequestHash);
    }
    return this.startReserved(key, task, req.prepare);
  }

  /** Steps 1–3: the request validated, its model allowed to the key (a route's members chosen), its webhook target checked. */
  private async accept(key: ApiKey, req: StartRequest): Promise<Accepted> {
    const { body, url, events } = this.deps.webhooks.split(req.body);
    const checked = this.validateAsSent(req, body);
    if (key.models && !key.models.has(checked.model)) {
      throw new TaskRefused('not_allowed', `This API key may not use the model '${checked.model}'`, {
        param: 'model',
        code: 'model_not_allowed',
      });
    }
    const routed = checked.route && this.deps.routing!.choose(checked.route, key);
    const { entry, request } = routed ? routed.reserveAt : checked.direct!;
    const webhook = await this.deps.webhooks.target({ url, events }, key, req.origin);
    const taskId = req.idempotencyKey ? idempotentTaskId(key, req.idempotencyKey) : newTaskId();
    return {
      taskId,
      fingerprint: req.fingerprint,
      origin: req.origin,
      model: checked.model,
      entry,
      request,
      ...(routed
        ? {
            routed,
            candidates: routed.candidates.map((c) => ({ platform: c.entry.platform, model: c.entry.id })),
            skipped: routed.skipped,
          }
        : {}),
      ...(webhook ? { webhook } : {}),
      ...(req.asked ? { asked: req.asked } : {}),
    };
  }

  /**
   * Step 1 as the door sent it: its input URLs under the operator's policy (and the door's own origins), a field the
   * door only implied dropped for a model that takes no such field, and refusals named as the door names fields.
   */
  private validateAsSent(req: StartRequest, body: unknown): ReturnType<TaskStarter['validate']> {
    const urls = { allowPrivateOrigins: new Set([...this.deps.inputUrlAllowPrivateOrigins, ...(req.ownOrigins ?? [])]) };
    try {
      try {
        return this.validate(req.kind, body, urls);
      } catch (err) {
        const implied = impliedRefused(err, body, req.impliedFields);
        if (!implied) throw err;
        const { [implied]: _dropped, ...without } = body as Record<string, unknown>;
        return this.validate(req.kind, without, urls);
      }
    } catch (err) {
      throw err instanceof TaskRefused && req.fieldNames ? err.inDoorTerms(req.fieldNames) : err;
    }
  }

  /** Step 1: the request against the catalogue model it names, or against each member of the route it names. */
  private validate(kind: Kind, body: unknown, urls: InputUrlPolicy): { model: string; direct?: ValidatedRequest; route?: RouteValidation } {
    const parsed = parseRequestBody(kind, body, urls);
    const route = this.deps.routing?.find(kind, parsed.model);
    if (route) return { model: route.name, route: this.deps.routing!.validate(route, parsed) };
    const direct = validateForModel(this.deps.catalogue, this.deps.enabledPlatforms, kind, parsed);
    return { model: direct.entry.id, direct };
  }

  /** Steps 5–8 for a task whose reservation (if there is a ledger) is this request's. */
  private async startReserved(key: ApiKey, task: Accepted, prepare: StartRequest['prepare']): Promise<StartOutcome> {
    let giveSlotBack: (() => void) | undefined;
    let startSent = false;
    try {
      giveSlotBack = await this.deps.inflight.take(key);
      await prepare?.();
      startSent = true;
      await this.deps.tasks.start(key.id, task.entry, task.request, {
        taskId: task.taskId,
        requestHash: task.fingerprint,
        ...(task.routed ? { route: taskRouteOf(task.routed) } : {}),
        ...(task.asked ? { asked: task.asked } : {}),
        ...(task.webhook ? { webhook: task.webhook } : {}),
        ...(key.weight !== undefined ? { weight: key.weight } : {}),
      });
    } catch (err) {
      giveSlotBack?.();
      if (isAlreadyStarted(err)) return this.alreadyStarted(key, task);
      await this.giveReservationBack(task.taskId, startSent);
      throw err;
    }
    this.deps.onStarted?.(task.entry, task.model);
    return { replayed: false, ...started(task) };
  }

  /**
   * The workflow exists although this request's reservation was new: it was started before its entry was kept (or
   * there is no ledger). Its own request's fingerprint, in its memo, says whether this is a retry of it.
   */
  private async alreadyStarted(key: ApiKey, task: Accepted): Promise<StartOutcome> {
    const found = await this.deps.tasks.readWithFingerprint(task.taskId, key.id, task.origin);
    if (found && found.requestHash === task.fingerprint) return { replayed: true, ...started(task), record: found.record };
    await this.giveReservationBack(task.taskId, false);
    throw reusedKey(task.taskId);
  }

  /**
   * A repeated Idempotency-Key: the task its first request started, if that request was this one (same
   * fingerprint); a different request is refused, whatever the timing. The first request may still be starting the
   * task: it is waited for, briefly.
   */
  private async replay(key: ApiKey, task: Accepted, reservedBy: string | null): Promise<StartOutcome> {
    if (reservedBy !== null && reservedBy !== task.fingerprint) throw reusedKey(task.taskId);
    const waitUntil = Date.now() + (this.deps.replayWaitMs ?? 3_000);
    for (;;) {
      const found = await this.deps.tasks.readWithFingerprint(task.taskId, key.id, task.origin);
      if (found) {
        // An entry written before entries kept the fingerprint: the task's memo has it.
        if (found.requestHash !== task.fingerprint) throw reusedKey(task.taskId);
        return { replayed: true, ...started(task), record: found.record };
      }
      if (Date.now() >= waitUntil) throw keyInUse(task.taskId);
      await new Promise((r) => setTimeout(r, REPLAY_POLL_MS));
    }
  }

  /**
   * Step 8: the reservation goes back when no workflow was started under the task's id. After a start request that
   * failed, Temporal is asked first: a start whose answer was lost may have made the workflow, which then keeps
   * its reservation (so does a task nobody can ask about now; the ledger's sweep settles either once it knows).
   */
  private async giveReservationBack(taskId: string, startSent: boolean): Promise<void> {
    const ledger = this.deps.ledger;
    if (!ledger) return;
    try {
      if (startSent && (await this.deps.tasks.exists(taskId))) return;
      await ledger.releaseUnstarted(taskId);
    } catch {
      // The sweep releases it: a reservation older than a start can take, with no workflow, is never started.
    }
  }
}
