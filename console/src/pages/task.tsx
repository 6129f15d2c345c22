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
  const run = async (what: () => Promise<unknown>, message: string) => {
    if (!(await action.run(what))) return;
    setPending(undefined);
    setDone(message);
    task.reload();
  };
  const askReplay = () =>
    action.run(async () =>
      setPending({ kind: 'replay', preview: await api<ReplayAnswer>('POST', '/admin/v1/tasks/replay', { task_id: id, dry_run: true }) }),
    );
  const t = task.data;
  return (
    <>
      <h1>
        Task <code>{id}</code>
      </h1>
      <LoadState error={task.error} loading={task.loading && !t} />
      {done ? <p role="status">{done}</p> : null}
      {t ? (
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
              <button type="button" class="outline danger" onClick={() => (action.clear(), setPending({ kind: 'cancel' }))}>
                Cancel task
              </button>
            ) : null}
            {t.status === 'failed' ? (
              <button type="button" class="outline" onClick={() => void askReplay()}>
                Replay task…
              </button>
            ) : null}
            {t.temporal_ui_url ? (
              <a href={t.temporal_ui_url} target="_blank" rel="noopener noreferrer">
                Workflow in the Temporal UI
              </a>
            ) : null}
          </div>
          <Facts t={t} />
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
                <button type="button" class="outline" onClick={() => (action.clear(), setPending({ kind: 'redeliver' }))}>
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
      ) : null}
      <Confirm
        title="Cancel this task?"
        open={pending?.kind === 'cancel'}
        confirmLabel="Cancel task"
        danger
        busy={action.busy}
        error={action.error}
        onConfirm={() => void run(() => api('POST', `/admin/v1/tasks/${id}/cancel`), 'Cancel requested.')}
        onClose={() => setPending(undefined)}
      >
        <p>The task stops for its key, and its upstream job is cancelled where the platform allows.</p>
      </Confirm>
      <Confirm
        title="Replay this task?"
        open={pending?.kind === 'replay'}
        confirmLabel="Replay"
        busy={action.busy}
        error={action.error}
        onConfirm={() => void run(() => api('POST', '/admin/v1/tasks/replay', { task_id: id }), 'Replay started.')}
        onClose={() => setPending(undefined)}
      >
        <ReplayPreview answer={pending?.kind === 'replay' ? pending.preview : undefined} />
      </Confirm>
      <Confirm
        title="Redeliver the last webhook event?"
        open={pending?.kind === 'redeliver'}
        confirmLabel="Redeliver"
        busy={action.busy}
        error={action.error}
        onConfirm={() => void run(() => api('POST', `/admin/v1/deliveries/${id}/redeliver`), 'Redelivery queued.')}
        onClose={() => setPending(undefined)}
      >
        <p>The task's last event is sent again, with the same webhook-id.</p>
      </Confirm>
    </>
  );
}
