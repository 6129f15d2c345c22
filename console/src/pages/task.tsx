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
import { ReplayPreview, type OperatorTask, type ReplayAnswer } from './tasks';

interface TaskDetail extends OperatorTask {
  record: Record<string, unknown>;
  timeline: { state: string; at: string }[];
  deliveries: { webhook_url?: string; events: DeliveryEvent[] } | null;
  temporal_ui_url: string | null;
}

type Pending = { kind: 'cancel' } | { kind: 'replay'; preview: ReplayAnswer } | { kind: 'redeliver' };

/** What each change asks, does through the admin API, and says once done. */
const CHANGES: Record<
  Pending['kind'],
  { title: string; label: string; danger?: boolean; text?: string; call: (id: string) => Promise<unknown>; done: string }
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
    call: (id) => api('POST', '/admin/v1/replays', { task_id: id }),
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

/** What became of the task: the timeline of its states, its webhook deliveries, its record as its key reads it. */
function Story(props: { t: TaskDetail; onRedeliver: () => void }) {
  const t = props.t;
  return (
    <>
      <section>
        <h2>Timeline</h2>
        <ol>
          {t.timeline.map((e, i) => (
            <li key={i}>
              {when(e.at)}: {e.state}
            </li>
          ))}
        </ol>
      </section>
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
  const ask = (p: Pending) => (action.clear(), setPending(p));
  const confirm = async () => {
    if (!pending || !(await action.run(() => CHANGES[pending.kind].call(id)))) return;
    setDone(CHANGES[pending.kind].done);
    setPending(undefined);
    task.reload();
  };
  const askReplay = () =>
    action.run(async () =>
      ask({ kind: 'replay', preview: await api<ReplayAnswer>('POST', '/admin/v1/replays', { task_id: id, dry_run: true }) }),
    );
  const t = task.data;
  const change = pending ? CHANGES[pending.kind] : undefined;
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
        danger={change?.danger}
        busy={action.busy}
        error={action.error}
        onConfirm={() => void confirm()}
        onClose={() => setPending(undefined)}
      >
        {pending?.kind === 'replay' ? <ReplayPreview answer={pending.preview} /> : <p>{change?.text}</p>}
      </Confirm>
    </>
  );
}
