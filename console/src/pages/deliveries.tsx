/** Webhook deliveries: tasks whose events are being sent, retried, or were given up, with their last answers; redeliver one. */
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query } from '../admin-api';
import { Pager } from '../components/pager';
import { useAction } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { EventList, type DeliveryEvent } from '../deliveries-table';
import { when } from '../format';
import { useApi } from '../use-api';

interface DeliveryItem {
  task_id: string;
  key: string;
  webhook_url: string;
  state: string;
  pending_since: string | null;
  events: DeliveryEvent[];
}

const STATES = ['pending', 'retrying', 'given_up'];

export function Deliveries() {
  const location = useLocation();
  const state = STATES.includes(location.query.state ?? '') ? location.query.state! : 'retrying';
  const [tokens, setTokens] = useState<string[]>([]);
  const list = useApi<{ data: DeliveryItem[]; next_page_token: string | null }>(
    `/admin/v1/deliveries${query({ state, page_token: tokens.at(-1) })}`,
  );
  const [target, setTarget] = useState<string>();
  const action = useAction();
  const [done, setDone] = useState<string>();
  const columns = useMemo<Columns<DeliveryItem>>(
    () => [
      { id: 'task', header: 'Task', cell: ({ row }) => <a href={`/console/tasks/${row.original.task_id}`}>{row.original.task_id}</a> },
      { id: 'key', header: 'Key', accessorFn: (d) => d.key },
      { id: 'url', header: 'Webhook URL', accessorFn: (d) => d.webhook_url },
      { id: 'state', header: 'State', cell: ({ row }) => <Status value={row.original.state} /> },
      { id: 'since', header: 'Retrying since', accessorFn: (d) => when(d.pending_since) },
      {
        id: 'events',
        header: 'Events and last answers',
        meta: { width: 'wide' },
        cell: ({ row }) => <EventList events={row.original.events} />,
      },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <button type="button" class="outline" onClick={() => (action.clear(), setTarget(row.original.task_id))}>
            Redeliver {row.original.task_id}
          </button>
        ),
      },
    ],
    [],
  );
  const redeliver = async () => {
    if (!target || !(await action.run(() => api('POST', `/admin/v1/deliveries/${target}/redeliver`)))) return;
    setDone(`The last event of ${target} is queued again.`);
    setTarget(undefined);
    list.reload();
  };
  return (
    <>
      <h1>Webhook deliveries</h1>
      <nav aria-label="Delivery states">
        <ul>
          {STATES.map((s) => (
            <li key={s}>
              <a href={`/console/deliveries?state=${s}`} aria-current={s === state ? 'page' : undefined} onClick={() => setTokens([])}>
                {s.replace('_', ' ')}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {done ? <p role="status">{done}</p> : null}
      <LoadState error={list.error} loading={list.loading && !list.data} />
      {list.data ? (
        <>
          <DataTable
            caption={`Deliveries ${state.replace('_', ' ')}`}
            columns={columns}
            data={list.data.data}
            empty="None."
            rowId={(d) => d.task_id}
          />
          <Pager
            label="Delivery pages"
            hasPrevious={tokens.length > 0}
            hasNext={Boolean(list.data.next_page_token)}
            onPrevious={() => setTokens(tokens.slice(0, -1))}
            onNext={() => setTokens([...tokens, list.data!.next_page_token!])}
          />
        </>
      ) : null}
      <Confirm
        title={`Redeliver the last event of ${target ?? ''}?`}
        open={target !== undefined}
        confirmLabel="Redeliver"
        busy={action.busy}
        error={action.error}
        onConfirm={() => void redeliver()}
        onClose={() => setTarget(undefined)}
      >
        <p>The event is sent again now, with the same webhook-id, and retried as before if it fails.</p>
      </Confirm>
    </>
  );
}
