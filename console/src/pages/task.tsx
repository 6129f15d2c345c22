/**
 * One task: its status and, when it failed, why (first, in words); its cost, key, model, platform, upstream job and
 * account; the timeline of its states; its webhook deliveries; a link to its workflow in the Temporal UI; cancel while
 * it runs, replay (with its preview) when it failed.
 */
import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api } from '../admin-api';
import { useAction } from '../use-action';
import { Confirm } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { EventList, type DeliveryEvent } from '../deliveries-table';
import { costText, when } from '../format';
import { useApi } from '../use-api';
import { replayRisk, ReplayPreview, RiskConfirmation, type OperatorTask, type ReplayAnswer } from './tasks';

interface TimelineEntry {
  state: string;
  at: string;
  run: number;
  run_id: string;
}

interface TaskDetail extends OperatorTask {
  record: Record<string, unknown>;
  run_id: string;
  timeline: TimelineEntry[];
  deliveries: { webhook_url?: string; events: DeliveryEvent[] } | null;
  temporal_ui_url: string | null;
}

type Pending = { kind: 'cancel' } | { kind: 'replay'; preview: ReplayAnswer; risk?: string | undefined } | { kind: 'redeliver' };

/** What each change asks, does through the admin API, and says once done. */
const CHANGES: Record<
  Pending['kind'],
  {
    title: string;
    label: string;
    danger?: boolean;
    text?: string;
    call: (id: string, t: TaskDetail | undefined) => Promise<unknown>;
    done: string;
  }
> = {
  cancel: {
    title: 'Cancel this task?',
    label: 'Cancel task',
    danger: true,
    text: 'The task stops for its key, and its upstream job is cancelled where the platform allows.',
    call: (id) => api('POST', `/admin/v1/tasks/${id}/cancel`),
    done: 'Cancel requested.',
  },
  replay: {
    title: 'Replay this task?',
    label: 'Replay',
    call: (id, t) => api('POST', '/admin/v1/replays', replayBody(id, t, false)),
    done: 'Replay started.',
  },
  redeliver: {
    title: 'Redeliver the last webhook event?',
    label: 'Redeliver',
    text: "The task's last event is sent again, with the same webhook-id.",
    call: (id) => api('POST', `/admin/v1/deliveries/${id}/redeliver`),
    done: 'Redelivery queued.',
  },
};

/**
 * The replay's request: a task that failed for a reason an outage does not cause is named with that reason, which
 * is what lets the API replay it (the operator has then accepted the risk the confirmation names).
 */
function replayBody(id: string, t: TaskDetail | undefined, dryRun: boolean) {
  const risky = replayRisk(t?.failure_reason) !== undefined;
  return {
    task_id: id,
    ...(risky && t?.failure_reason ? { filter: { failure_reason: t.failure_reason } } : {}),
    ...(dryRun ? { dry_run: true } : {}),
  };
}

/** The timeline, one list per run: a replayed task's failed run stays in sight above its replay. */
function Timeline(props: { entries: TimelineEntry[]; runId: string }) {
  const runs = [...new Set(props.entries.map((e) => e.run))];
  return (
    <section data-testid="timeline">
      <h2>Timeline</h2>
      {runs.map((run) => {
        const entries = props.entries.filter((e) => e.run === run);
        const current = entries[0]?.run_id === props.runId;
        return (
          <div key={run}>
            {runs.length > 1 ? (
              <h3>
                Run {run} {current ? '(current)' : '(replayed)'}
              </h3>
            ) : null}
            <ol aria-label={`Run ${run}`}>
              {entries.map((e, i) => (
                <li key={i}>
                  <time dateTime={e.at} title={e.at}>
                    {when(e.at)}
                  </time>
                  : {e.state}
                </li>
              ))}
            </ol>
          </div>
        );
      })}
    </section>
  );
}

/** What became of the task: the timeline of its states, its webhook deliveries, its record as its key reads it. */
function Story(props: { t: TaskDetail; onRedeliver: () => void }) {
  const t = props.t;
  return (
    <>
      <Timeline entries={t.timeline} runId={t.run_id} />
      <section>
        <h2>Webhook deliveries</h2>
        {t.deliveries ? (
          <>
            <p>To {t.deliveries.webhook_url}</p>
            <EventList events={t.deliveries.events} />
            <button type="button" class="outline" onClick={props.onRedeliver}>
              Redeliver the last event
            </button>
          </>
        ) : (
          <p>This task has no webhook.</p>
        )}
      </section>
      <details>
        <summary>Record (as its key reads it)</summary>
        <pre>{JSON.stringify(t.record, null, 2)}</pre>
      </details>
    </>
  );
}

/** The task's state and, if it failed, why; what can be done to it now; its workflow in the Temporal UI. */
function Head(props: { t: TaskDetail; onCancel: () => void; onReplay: () => void }) {
  const t = props.t;
  return (
    <>
      <p>
        <Status value={t.status} />
        {t.error ? (
          <strong data-testid="failure-reason">
            {' '}
            {t.failure_reason ?? t.error.code}: {t.error.message}
          </strong>
        ) : null}
      </p>
      <div class="actions">
        {t.status === 'pending' || t.status === 'running' ? (
          <button type="button" class="outline danger" onClick={props.onCancel}>
            Cancel task
          </button>
        ) : null}
        {t.status === 'failed' ? (
          <button type="button" class="outline" onClick={props.onReplay}>
            Replay task…
          </button>
        ) : null}
        {(t.runs ?? 1) > 1 ? <small>{t.runs} runs: this task was replayed</small> : null}
        {t.temporal_ui_url ? (
          <a href={t.temporal_ui_url} target="_blank" rel="noopener noreferrer">
            Workflow in the Temporal UI
          </a>
        ) : null}
      </div>
    </>
  );
}

function Facts(props: { t: TaskDetail }) {
  const t = props.t;
  const rows: [string, string][] = [
    ['Key', t.key],
    ['Model', `${t.model} (${t.kind})`],
    ['Platform', t.platform],
    ['Cost', costText(t.cost)],
    ['Upstream job', t.upstream_task_id ?? 'none yet'],
    ['Upstream account', t.upstream_account ?? 'none yet'],
    ['Started', when(t.created_at)],
    ['Ended', when(t.closed_at)],
  ];
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Task() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const task = useApi<TaskDetail>(`/admin/v1/tasks/${encodeURIComponent(id)}`);
  const [pending, setPending] = useState<Pending>();
  const action = useAction();
  const [done, setDone] = useState<string>();
  const [riskAccepted, setRiskAccepted] = useState(false);
  const ask = (p: Pending) => (action.clear(), setRiskAccepted(false), setPending(p));
  const confirm = async () => {
    if (!pending || !(await action.run(() => CHANGES[pending.kind].call(id, task.data)))) return;
    setDone(CHANGES[pending.kind].done);
    setPending(undefined);
    task.reload();
  };
  const askReplay = () =>
    action.run(async () =>
      ask({
        kind: 'replay',
        preview: await api<ReplayAnswer>('POST', '/admin/v1/replays', replayBody(id, task.data, true)),
        risk: replayRisk(task.data?.failure_reason),
      }),
    );
  const t = task.data;
  const change = pending ? CHANGES[pending.kind] : undefined;
  const risk = pending?.kind === 'replay' ? pending.risk : undefined;
  const nothingToReplay = pending?.kind === 'replay' && pending.preview.replayed.length === 0;
  return (
    <>
      <h1>
        Task <code>{id}</code>
      </h1>
      <LoadState error={task.error} loading={task.loading && !t} />
      {done ? <p role="status">{done}</p> : null}
      {t ? (
        <>
          <Head t={t} onCancel={() => ask({ kind: 'cancel' })} onReplay={() => void askReplay()} />
          <Facts t={t} />
          <Story t={t} onRedeliver={() => ask({ kind: 'redeliver' })} />
        </>
      ) : null}
      <Confirm
        title={change?.title ?? ''}
        open={pending !== undefined}
        confirmLabel={change?.label ?? ''}
        danger={change?.danger ?? risk !== undefined}
        busy={action.busy}
        disabled={nothingToReplay || (risk !== undefined && !riskAccepted)}
        error={action.error}
        onConfirm={() => void confirm()}
        onClose={() => setPending(undefined)}
      >
        {pending?.kind === 'replay' ? (
          <>
            {risk && !nothingToReplay ? <RiskConfirmation risk={risk} accepted={riskAccepted} onChange={setRiskAccepted} /> : null}
            <ReplayPreview answer={pending.preview} />
          </>
        ) : (
          <p>{change?.text}</p>
        )}
      </Confirm>
    </>
  );
}
