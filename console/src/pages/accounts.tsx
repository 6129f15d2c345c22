/** The platforms' accounts as the workers see them: state, why and since when, jobs in flight, recent refusals. */
import { useMemo } from 'preact/hooks';
import { DataTable, type Columns } from '../components/data-table';
import { LoadState, Status } from '../components/status';
import { when } from '../format';
import { useApi } from '../use-api';

interface AccountView {
  platform: string;
  account: string;
  state: string;
  weight: number;
  out_reason: string | null;
  out_since: string | null;
  out_until: string | null;
  throttled_until: string | null;
  jobs_in_flight: number;
  workers: { worker: string; state: string; updated_at: string }[];
  recent_refusals: { at: string; kind: string; reason: string; worker: string }[];
}

export function Accounts() {
  const accounts = useApi<{ data: AccountView[] }>('/admin/v1/accounts');
  const columns = useMemo<Columns<AccountView>>(
    () => [
      { id: 'platform', header: 'Platform', accessorFn: (a) => a.platform },
      { id: 'account', header: 'Account', accessorFn: (a) => a.account },
      { id: 'state', header: 'State', cell: ({ row }) => <Status value={row.original.state} /> },
      {
        id: 'why',
        header: 'Why, since when',
        cell: ({ row }) => {
          const a = row.original;
          if (a.state === 'out') return `${a.out_reason ?? 'refused'}; out since ${when(a.out_since)}, probed again ${when(a.out_until)}`;
          if (a.state === 'throttled') return `slowed until ${when(a.throttled_until)}`;
          return '—';
        },
      },
      { id: 'jobs', header: 'Jobs in flight', accessorFn: (a) => a.jobs_in_flight },
      { id: 'workers', header: 'Workers', accessorFn: (a) => a.workers.map((w) => `${w.worker}: ${w.state}`).join('; ') },
      {
        id: 'refusals',
        header: 'Recent refusals',
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
    ],
    [],
  );
  return (
    <>
      <h1>Platform accounts</h1>
      <p>As every running worker last reported them (each reports every few seconds).</p>
      <button type="button" class="outline" onClick={accounts.reload}>
        Refresh
      </button>
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
    </>
  );
}
