/**
 * The ledger against the platforms' own records (GET /admin/v1/reconciliations): each platform account's day with
 * what its platform's record shows that the ledger does not — jobs no task of ours owns (orphans), tasks we billed
 * the platform has no record of, usage that differs — and a run on demand (POST). One report with its differences
 * at /console/reconciliation/:id.
 */
import { useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { api, query } from '../admin-api';
import { DataTable, type Columns } from '../components/data-table';
import { Pager } from '../components/pager';
import { LoadState } from '../components/status';
import { when } from '../format';
import { useAction } from '../use-action';
import { useApi } from '../use-api';

interface ReportView {
  id: string;
  platform: string;
  account: string;
  day: string;
  status: 'complete' | 'not_available';
  source: string;
  note: string | null;
  platform_jobs: number;
  ledger_tasks: number;
  differences: { orphan: number; missing: number; usage: number; total: number };
  created_at: string;
}

interface DifferenceView {
  kind: 'orphan' | 'missing' | 'usage' | 'total';
  upstream_task_id: string | null;
  task_id: string | null;
  model: string | null;
  at: string | null;
  details: unknown;
}

const PAGE = 50;
const KIND_LABEL: Record<DifferenceView['kind'], string> = {
  orphan: 'Orphan: a job no task of ours owns',
  missing: 'Missing: billed here, no record there',
  usage: 'Usage differs',
  total: 'Day total differs',
};

/**
 * A difference's details in words, "tokens (ledger 244800, platform 246034)": spaces let a narrow screen wrap them,
 * where JSON would widen the table past it.
 */
function detailsText(v: unknown): string {
  if (v === null || typeof v !== 'object') return String(v);
  return Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => (x !== null && typeof x === 'object' ? `${k} (${detailsText(x)})` : `${k} ${String(x)}`))
    .join(', ');
}

/** A report's differences in words: "2 orphans, 1 missing" or "none" (or why there is no report to make). */
function summary(r: ReportView): string {
  if (r.status === 'not_available') return 'not available';
  const d = r.differences;
  const parts = [
    d.orphan > 0 ? `${d.orphan} orphan${d.orphan === 1 ? '' : 's'}` : '',
    d.missing > 0 ? `${d.missing} missing` : '',
    d.usage > 0 ? `${d.usage} usage` : '',
    d.total > 0 ? `${d.total} total` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

function RunForm(props: { onStarted: () => void }) {
  const action = useAction();
  const [started, setStarted] = useState<string>();
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const day = (form.elements.namedItem('day') as HTMLInputElement).value;
    void action
      .run(async () => {
        const r = await api<{ workflow_id: string; day: string }>('POST', '/admin/v1/reconciliations', day ? { day } : {});
        setStarted(`Reconciling ${r.day} (${r.workflow_id}); reports appear as each account is done.`);
      })
      .then((ok) => ok && props.onStarted());
  };
  return (
    <form class="grid" onSubmit={submit}>
      <label>
        Day (UTC; empty: yesterday)
        <input type="date" name="day" />
      </label>
      <div>
        <button type="submit" aria-busy={action.busy}>
          Reconcile now
        </button>
        {action.error ? (
          <p role="alert" class="error">
            {action.error}
          </p>
        ) : null}
        {started ? <p role="status">{started}</p> : null}
      </div>
    </form>
  );
}

export function Reconciliations() {
  const [page, setPage] = useState(1);
  const reports = useApi<{ data: ReportView[]; total: number; has_more: boolean }>(
    `/admin/v1/reconciliations${query({ page, page_size: PAGE })}`,
  );
  const columns = useMemo<Columns<ReportView>>(
    () => [
      { id: 'day', header: 'Day', cell: ({ row }) => <a href={`/console/reconciliation/${row.original.id}`}>{row.original.day}</a> },
      { id: 'platform', header: 'Platform', accessorFn: (r) => r.platform },
      { id: 'account', header: 'Account', accessorFn: (r) => r.account },
      { id: 'jobs', header: 'Platform jobs', accessorFn: (r) => (r.status === 'complete' ? r.platform_jobs : '—') },
      { id: 'tasks', header: 'Our tasks', accessorFn: (r) => (r.status === 'complete' ? r.ledger_tasks : '—') },
      { id: 'differences', header: 'Differences', accessorFn: (r) => summary(r) },
    ],
    [],
  );
  return (
    <>
      <h1>Reconciliation</h1>
      <p>Each platform account's day, the ledger against the platform's own record: every day for the day before, or on demand.</p>
      <RunForm onStarted={reports.reload} />
      <button type="button" class="outline" onClick={reports.reload}>
        Refresh
      </button>
      <LoadState error={reports.error} loading={reports.loading && !reports.data} />
      {reports.data ? (
        <>
          <DataTable
            caption={`Reports (${reports.data.total})`}
            columns={columns}
            data={reports.data.data}
            empty="No day has been reconciled yet."
            rowId={(r) => r.id}
          />
          <Pager
            label="Report pages"
            hasPrevious={page > 1}
            hasNext={reports.data.has_more}
            onPrevious={() => setPage(page - 1)}
            onNext={() => setPage(page + 1)}
          />
        </>
      ) : null}
    </>
  );
}

export function Reconciliation() {
  const { params } = useRoute();
  const report = useApi<ReportView & { items: DifferenceView[] }>(`/admin/v1/reconciliations/${encodeURIComponent(params.id ?? '')}`);
  const columns = useMemo<Columns<DifferenceView>>(
    () => [
      { id: 'kind', header: 'Kind', accessorFn: (d) => KIND_LABEL[d.kind] },
      { id: 'upstream', header: 'Upstream job', accessorFn: (d) => d.upstream_task_id ?? '—' },
      {
        id: 'task',
        header: 'Task',
        cell: ({ row }) => (row.original.task_id ? <a href={`/console/tasks/${row.original.task_id}`}>{row.original.task_id}</a> : '—'),
      },
      { id: 'model', header: 'Model', accessorFn: (d) => d.model ?? '—' },
      { id: 'at', header: 'Created', accessorFn: (d) => when(d.at) },
      { id: 'details', header: 'Details', accessorFn: (d) => detailsText(d.details) },
    ],
    [],
  );
  const r = report.data;
  return (
    <>
      <p>
        <a href="/console/reconciliation">All reports</a>
      </p>
      <LoadState error={report.error} loading={report.loading && !report.data} />
      {r ? (
        <>
          <h1>
            {r.platform} {r.account}, {r.day}
          </h1>
          <dl>
            <dt>Source</dt>
            <dd>{r.status === 'complete' ? r.source : `not available: ${r.note ?? ''}`}</dd>
            {r.status === 'complete' && r.note ? (
              <>
                <dt>Limits</dt>
                <dd>{r.note}</dd>
              </>
            ) : null}
            <dt>Platform jobs / our tasks</dt>
            <dd>
              {r.platform_jobs} / {r.ledger_tasks}
            </dd>
            <dt>Differences</dt>
            <dd>{summary(r)}</dd>
            <dt>Reconciled</dt>
            <dd>{when(r.created_at)}</dd>
          </dl>
          <DataTable
            caption="Differences (orphans first)"
            columns={columns}
            data={r.items}
            empty="The ledger and the platform agree on this day."
            rowId={(d) => `${d.kind}/${d.upstream_task_id ?? d.task_id ?? ''}`}
          />
        </>
      ) : null}
    </>
  );
}
