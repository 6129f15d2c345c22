/**
 * The platforms' accounts as the workers see them: state, why (the platform's code and its own words) and since
 * when, jobs in flight, recent refusals; and "Probe now" for an account out of the rotation, which asks every worker
 * (through the admin API and the database) to end its cool-down so the next create tries it.
 */
import { useMemo, useState } from 'preact/hooks';
import { api } from '../admin-api';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { when } from '../format';
import { useAction } from '../use-action';
import { useApi } from '../use-api';

interface AccountView {
  platform: string;
  account: string;
  state: string;
  weight: number;
  out_reason: string | null;
  out_detail?: string | null;
  out_since: string | null;
  out_until: string | null;
  throttled_until: string | null;
  jobs_in_flight: number;
  /** Its slots and queue (the slot store); null: no task has used it yet. */
  capacity?: {
    limit: number | null;
    limit_source: 'configured' | 'learned' | 'unlimited';
    configured: number | null;
    in_use: number;
    waiting: number;
    oldest_waiting_since: string | null;
  } | null;
  workers: { worker: string; state: string; updated_at: string }[];
  recent_refusals: { at: string; kind: string; reason: string; worker: string }[];
}

/** An account's slots in words: "3 of 10 in use (configured)", "2 of 3 in use (learned; 10 configured)", "4 in use (no limit)". */
function slotsText(c: NonNullable<AccountView['capacity']>): string {
  if (c.limit === null) return `${c.in_use} in use (no limit)`;
  const source = c.limit_source === 'learned' ? `learned${c.configured !== null ? `; ${c.configured} configured` : ''}` : 'configured';
  return `${c.in_use} of ${c.limit} in use (${source})`;
}

/** The account's queue in words: "none waiting", "12 waiting since 2026-11-29 05:11 UTC". */
function queueText(c: NonNullable<AccountView['capacity']>): string {
  return c.waiting === 0 ? 'none waiting' : `${c.waiting} waiting since ${when(c.oldest_waiting_since)}`;
}

/** Why an account is out, in words: the platform's own message first, its code after. */
function whyOut(a: AccountView): string {
  const code = a.out_reason ?? 'refused';
  return a.out_detail ? `${a.out_detail} (${code})` : code;
}

export function Accounts() {
  const accounts = useApi<{ data: AccountView[] }>('/admin/v1/accounts');
  const [target, setTarget] = useState<AccountView>();
  const [done, setDone] = useState<string>();
  const action = useAction();
  const columns = useMemo<Columns<AccountView>>(
    () => [
      { id: 'platform', header: 'Platform', accessorFn: (a) => a.platform },
      { id: 'account', header: 'Account', accessorFn: (a) => a.account },
      { id: 'state', header: 'State', cell: ({ row }) => <Status value={row.original.state} /> },
      {
        id: 'why',
        header: 'Why, since when',
        meta: { width: 'wide' },
        cell: ({ row }) => {
          const a = row.original;
          if (a.state === 'out')
            return (
              <span data-testid={`why-${a.platform}-${a.account}`}>
                {whyOut(a)}; out since {when(a.out_since)}, probed again {when(a.out_until)}
              </span>
            );
          if (a.state === 'throttled') return `slowed until ${when(a.throttled_until)}`;
          return '—';
        },
      },
      { id: 'jobs', header: 'Jobs in flight', accessorFn: (a) => a.jobs_in_flight },
      {
        id: 'slots',
        header: 'Slots',
        cell: ({ row }) => (
          <span data-testid={`slots-${row.original.platform}-${row.original.account}`}>
            {row.original.capacity ? slotsText(row.original.capacity) : '—'}
          </span>
        ),
      },
      {
        id: 'queue',
        header: 'Queue',
        cell: ({ row }) => (
          <span data-testid={`queue-${row.original.platform}-${row.original.account}`}>
            {row.original.capacity ? queueText(row.original.capacity) : 'none waiting'}
          </span>
        ),
      },
      { id: 'workers', header: 'Workers', accessorFn: (a) => a.workers.map((w) => `${w.worker}: ${w.state}`).join('; ') },
      {
        id: 'refusals',
        header: 'Recent refusals',
        meta: { width: 'wide' },
        cell: ({ row }) =>
          row.original.recent_refusals.length === 0 ? (
            'none'
          ) : (
            <ul>
              {row.original.recent_refusals.map((r, i) => (
                <li key={i}>
                  {when(r.at)}: {r.kind}, {r.reason}
                </li>
              ))}
            </ul>
          ),
      },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) =>
          row.original.state === 'out' ? (
            <button type="button" class="outline" onClick={() => (action.clear(), setTarget(row.original))}>
              Probe {row.original.platform} {row.original.account} now
            </button>
          ) : (
            ''
          ),
      },
    ],
    [],
  );
  const probe = async () => {
    const a = target;
    if (!a) return;
    const path = `/admin/v1/accounts/${encodeURIComponent(a.platform)}/${encodeURIComponent(a.account)}/probe`;
    if (!(await action.run(() => api('POST', path)))) return;
    setDone(`Probe of ${a.platform} ${a.account} requested: the workers end its cool-down within seconds, and the next task tries it.`);
    setTarget(undefined);
    accounts.reload();
  };
  return (
    <>
      <h1>Platform accounts</h1>
      <p>As every running worker last reported them (each reports every few seconds).</p>
      <button type="button" class="outline" onClick={accounts.reload}>
        Refresh
      </button>
      {done ? <p role="status">{done}</p> : null}
      <LoadState error={accounts.error} loading={accounts.loading && !accounts.data} />
      {accounts.data ? (
        <DataTable
          caption="Accounts"
          columns={columns}
          data={accounts.data.data}
          empty="No worker has reported its accounts (is a worker running with DATABASE_URL?)."
          rowId={(a) => `${a.platform}/${a.account}`}
        />
      ) : null}
      <Confirm
        title={`Probe ${target?.platform ?? ''} ${target?.account ?? ''} now?`}
        open={target !== undefined}
        confirmLabel="Probe now"
        busy={action.busy}
        error={action.error}
        onConfirm={() => void probe()}
        onClose={() => setTarget(undefined)}
      >
        <p>
          The account's cool-down ends on every worker within seconds: the next task may be sent to it, and the platform's answer decides —
          a job made puts it back in the rotation, another refusal takes it out again. A refusal costs no job.
        </p>
      </Confirm>
    </>
  );
}
