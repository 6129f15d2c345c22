/**
 * Every key's tasks, filtered by status, model (or route), platform, key, failure reason and start time, a page at a
 * time (the admin API pages them on the server: 100,000 tasks are never loaded). The filters live in the address and
 * nowhere else: the controls show them, the list reads them, and "Replay…" previews the failed tasks of exactly
 * them (so the overview's links arrive with their filters set and shown). A replay of failures an outage does not
 * cause (a content-policy refusal, an invalid request, a failed generation) asks for a second, explicit
 * confirmation that names its risk: such tasks are likely refused or charged again (docs/guides/repair.md).
 */
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query } from '../admin-api';
import { Pager } from '../components/pager';
import { useAction } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { costText, INSTANT_PATTERN, instantOf, when } from '../format';
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
  runs?: number;
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
export const REASONS = [
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
/** The failures an outage causes: a replay of these is the repair docs/guides/repair.md describes. */
export const OUTAGE_REASONS = ['upstream_unavailable', 'deadline_exceeded', 'upstream_lost'];

/** The risk of replaying tasks that failed for `reason`, in words; undefined for an outage's reasons. */
export function replayRisk(reason: string | null | undefined): string | undefined {
  if (!reason || OUTAGE_REASONS.includes(reason)) return undefined;
  if (reason === 'content_policy')
    return 'These tasks were refused by the platform’s content policy. Sent again, the same prompts are likely refused again, may be charged again, and repeated refusals can put the platform account at risk.';
  return `These tasks failed with ${reason.replace(/_/g, ' ')}, which an outage does not cause: sent again, they are likely to fail again and may be charged again.`;
}

function FilterForm(props: { values: Record<string, string>; onApply: (v: Record<string, string>) => void }) {
  const submit = (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    props.onApply(Object.fromEntries(FILTERS.map((f) => [f, String(data.get(f) ?? '')]).filter(([, v]) => v !== '')));
  };
  const v = props.values;
  // A select's choice is set on its options: a select has no default value of its own.
  const select = (name: string, label: string, options: string[]) => (
    <label>
      {label}
      <select name={name}>
        <option value="" selected={!v[name]}>
          any
        </option>
        {options.map((o) => (
          <option key={o} value={o} selected={v[name] === o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
  const time = (name: string, label: string) => (
    <label>
      {label}
      <input
        name={name}
        defaultValue={v[name] ?? ''}
        placeholder="2026-11-29 05:11"
        pattern={INSTANT_PATTERN}
        aria-describedby="time-help"
      />
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
          Model or route
          <input name="model" defaultValue={v.model ?? ''} />
        </label>
        <label>
          Key
          <input name="key" defaultValue={v.key ?? ''} />
        </label>
        {time('since', 'Started from (UTC)')}
        {time('until', 'Started before (UTC)')}
      </div>
      <small id="time-help">Times are UTC, written 2026-11-29 05:11 (or a day alone: its start).</small>
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
  const [riskAccepted, setRiskAccepted] = useState(false);
  const action = useAction();
  const apiFilter: Record<string, string | undefined> = { ...filters, since: instantOf(filters.since), until: instantOf(filters.until) };
  const page = useApi<TaskPage>(`/admin/v1/tasks${query({ ...apiFilter, page_size: PAGE_SIZE, page_token: tokens.at(-1) })}`);
  const columns = useMemo<Columns<OperatorTask>>(
    () => [
      {
        id: 'task',
        header: 'Task',
        cell: ({ row }) => (
          <>
            <a href={`/console/tasks/${row.original.task_id}`} class="task-id">
              {row.original.task_id}
            </a>
            {(row.original.runs ?? 1) > 1 ? <small> ({row.original.runs} runs: replayed)</small> : null}
          </>
        ),
      },
      { id: 'status', header: 'Status', cell: ({ row }) => <Status value={row.original.status} /> },
      {
        id: 'why',
        header: 'Failure',
        cell: ({ row }) => {
          const t = row.original;
          return t.error ? <span title={t.error.message}>{t.failure_reason ?? t.error.code}</span> : '';
        },
      },
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
  // The replay takes the very filters the list shows, status included (the API replays only failed tasks: any other
  // status matches none).
  const body = (dryRun: boolean) => ({ filter: JSON.parse(JSON.stringify(apiFilter)) as object, ...(dryRun ? { dry_run: true } : {}) });
  const risk = replayRisk(filters.failure_reason);
  const askReplay = () =>
    action.run(async () => {
      setRiskAccepted(false);
      setPreview(await api<ReplayAnswer>('POST', '/admin/v1/replays', body(true)));
    });
  const replay = async () => {
    if (!(await action.run(() => api<ReplayAnswer>('POST', '/admin/v1/replays', body(false))))) return;
    setPreview(undefined);
    page.reload();
  };
  const blocked = preview !== undefined && (preview.replayed.length === 0 || (risk !== undefined && !riskAccepted));
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
        danger={risk !== undefined}
        busy={action.busy}
        disabled={blocked}
        error={action.error}
        onConfirm={() => void replay()}
        onClose={() => setPreview(undefined)}
      >
        <p data-testid="replay-filters">
          Filters:{' '}
          {Object.keys(filters).length === 0
            ? 'none'
            : Object.entries(filters)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ')}
        </p>
        {risk && preview && preview.replayed.length > 0 ? (
          <RiskConfirmation risk={risk} accepted={riskAccepted} onChange={setRiskAccepted} />
        ) : null}
        <ReplayPreview answer={preview} />
      </Confirm>
    </>
  );
}

/** The second confirmation a risky replay needs: the risk in words, and a box the operator ticks to accept it. */
export function RiskConfirmation(props: { risk: string; accepted: boolean; onChange: (accepted: boolean) => void }) {
  return (
    <div role="alert" class="risk" data-testid="replay-risk">
      <p>
        <strong>Warning:</strong> {props.risk}
      </p>
      <label>
        <input type="checkbox" checked={props.accepted} onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)} />I
        understand the risk and want these tasks sent again
      </label>
    </div>
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
