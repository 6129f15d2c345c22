/**
 * Every key's tasks, filtered by status, model, platform, key, failure reason and start time, a page at a time (the
 * admin API pages them on the server: 100,000 tasks are never loaded). The filters live in the address, so the
 * overview links here with them set; "Replay…" previews which failed tasks of the filter a replay would run again.
 */
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query } from '../admin-api';
import { Pager } from '../components/pager';
import { useAction } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { costText, when } from '../format';
import { useApi } from '../use-api';

export interface OperatorTask {
  task_id: string;
  key: string;
  status: string;
  model: string;
  platform: string;
  kind: string;
  failure_reason: string | null;
  error: { message: string; code: string } | null;
  cost: { amount: number; currency: string; estimated: boolean } | null;
  upstream_task_id: string | null;
  upstream_account: string | null;
  created_at: string;
  closed_at: string | null;
}

interface TaskPage {
  data: OperatorTask[];
  total: number;
  next_page_token: string | null;
}

export interface ReplayAnswer {
  dry_run: boolean;
  replayed: string[];
  skipped: { task_id: string; why: string }[];
  truncated: boolean;
}

const FILTERS = ['status', 'model', 'platform', 'key', 'failure_reason', 'since', 'until'] as const;
const STATUSES = ['pending', 'running', 'success', 'failed', 'cancelled'];
const REASONS = [
  'content_policy',
  'invalid_request',
  'upstream_failed',
  'upstream_lost',
  'upstream_unavailable',
  'upstream_auth',
  'insufficient_balance',
  'deadline_exceeded',
];
const PAGE_SIZE = 50;

/** A datetime-local value (taken as UTC) as the API's ISO instant. */
const instant = (v: string | undefined) => (v ? `${v.length === 16 ? `${v}:00` : v}Z` : undefined);

function FilterForm(props: { values: Record<string, string>; onApply: (v: Record<string, string>) => void }) {
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    props.onApply(Object.fromEntries(FILTERS.map((f) => [f, String(data.get(f) ?? '')]).filter(([, v]) => v !== '')));
  };
  const v = props.values;
  const select = (name: string, label: string, options: string[]) => (
    <label>
      {label}
      <select name={name} defaultValue={v[name] ?? ''}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
  return (
    <form onSubmit={submit} aria-label="Task filters">
      <div class="grid">
        {select('status', 'Status', STATUSES)}
        {select('failure_reason', 'Failure reason', REASONS)}
        {select('platform', 'Platform', ['T', 'B', 'V'])}
      </div>
      <div class="grid">
        <label>
          Model
          <input name="model" defaultValue={v.model ?? ''} />
        </label>
        <label>
          Key
          <input name="key" defaultValue={v.key ?? ''} />
        </label>
        <label>
          Started from (UTC)
          <input name="since" type="datetime-local" defaultValue={v.since ?? ''} />
        </label>
        <label>
          Started before (UTC)
          <input name="until" type="datetime-local" defaultValue={v.until ?? ''} />
        </label>
      </div>
      <button type="submit">Apply filters</button>
    </form>
  );
}

export function Tasks() {
  const location = useLocation();
  const filters = Object.fromEntries(FILTERS.map((f) => [f, location.query[f] ?? '']).filter(([, v]) => v !== '')) as Record<
    string,
    string
  >;
  const [tokens, setTokens] = useState<string[]>([]);
  const [preview, setPreview] = useState<ReplayAnswer>();
  const action = useAction();
  const apiFilter: Record<string, string | undefined> = { ...filters, since: instant(filters.since), until: instant(filters.until) };
  const page = useApi<TaskPage>(`/admin/v1/tasks${query({ ...apiFilter, page_size: PAGE_SIZE, page_token: tokens.at(-1) })}`);
  const columns = useMemo<Columns<OperatorTask>>(
    () => [
      { id: 'task', header: 'Task', cell: ({ row }) => <a href={`/console/tasks/${row.original.task_id}`}>{row.original.task_id}</a> },
      { id: 'status', header: 'Status', cell: ({ row }) => <Status value={row.original.status} /> },
      { id: 'why', header: 'Failure', accessorFn: (t) => (t.error ? `${t.failure_reason ?? t.error.code}: ${t.error.message}` : '') },
      { id: 'key', header: 'Key', accessorFn: (t) => t.key },
      { id: 'model', header: 'Model', accessorFn: (t) => t.model },
      { id: 'platform', header: 'Platform', accessorFn: (t) => t.platform },
      { id: 'cost', header: 'Cost', accessorFn: (t) => costText(t.cost) },
      { id: 'created', header: 'Started', accessorFn: (t) => when(t.created_at) },
    ],
    [],
  );
  const apply = (v: Record<string, string>) => {
    setTokens([]);
    location.route(`/console/tasks${query(v)}`);
  };
  const { status: _status, ...replayFilter } = apiFilter;
  const body = (dryRun: boolean) => ({ filter: JSON.parse(JSON.stringify(replayFilter)) as object, ...(dryRun ? { dry_run: true } : {}) });
  const askReplay = () => action.run(async () => setPreview(await api<ReplayAnswer>('POST', '/admin/v1/replays', body(true))));
  const replay = async () => {
    if (!(await action.run(() => api<ReplayAnswer>('POST', '/admin/v1/replays', body(false))))) return;
    setPreview(undefined);
    page.reload();
  };
  const p = page.data;
  return (
    <>
      <h1>Tasks</h1>
      <FilterForm key={location.url} values={filters} onApply={apply} />
      <button type="button" class="outline" onClick={() => void askReplay()}>
        Replay failed tasks matching these filters…
      </button>
      {action.error && !preview ? (
        <p role="alert" class="error">
          {action.error}
        </p>
      ) : null}
      <LoadState error={page.error} loading={page.loading && !p} />
      {p ? (
        <>
          <DataTable
            caption={`${p.total} tasks match`}
            columns={columns}
            data={p.data}
            empty="No task matches these filters."
            rowId={(t) => t.task_id}
          />
          <Pager
            label="Task pages"
            hasPrevious={tokens.length > 0}
            hasNext={Boolean(p.next_page_token)}
            onPrevious={() => setTokens(tokens.slice(0, -1))}
            onNext={() => setTokens([...tokens, p.next_page_token!])}
          />
        </>
      ) : null}
      <Confirm
        title="Replay these failed tasks?"
        open={preview !== undefined}
        confirmLabel={`Replay ${preview?.replayed.length ?? 0} tasks`}
        busy={action.busy}
        error={action.error}
        onConfirm={() => void replay()}
        onClose={() => setPreview(undefined)}
      >
        <ReplayPreview answer={preview} />
      </Confirm>
    </>
  );
}

/** What a replay would run again, and what it leaves alone and why (a cancelled task is never replayed). */
export function ReplayPreview(props: { answer: ReplayAnswer | undefined }) {
  const a = props.answer;
  if (!a) return null;
  return (
    <>
      <p>
        {a.replayed.length === 0
          ? 'No task would be replayed.'
          : `${a.replayed.length} failed task(s) would run again under the same task id:`}
        {a.truncated ? ' (more match: only the first ones are replayed)' : ''}
      </p>
      <ul data-testid="replay-preview">
        {a.replayed.map((id) => (
          <li key={id}>{id}</li>
        ))}
      </ul>
      {a.skipped.length > 0 ? (
        <>
          <p>Left alone:</p>
          <ul>
            {a.skipped.map((s) => (
              <li key={s.task_id}>
                {s.task_id}: {s.why}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
