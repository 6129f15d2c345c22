/**
 * Spend and usage: tasks, units and cost per key, model, route, served model, platform or day over a range of days (GET /admin/v1/usage,
 * the ledger's own figures), as a chart and a table, a CSV export that is that same endpoint's CSV, and every budget
 * with what is left of it.
 */
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { apiCsv, query } from '../admin-api';
import { messageOf } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Pager } from '../components/pager';
import { LoadState } from '../components/status';
import { DAY_PATTERN, dayRange, money } from '../format';
import { GROUP_NAMES, groupLabel, rowCost, SpendChart, type UsageAnswer, type UsageRow } from '../spend-chart';
import { useApi } from '../use-api';
import type { KeyView } from './key-form';

const GROUPS = ['key', 'model', 'route', 'served_model', 'platform', 'day'] as const;

const BUDGETS_PAGE = 50;

function Budgets() {
  const [page, setPage] = useState(1);
  const keys = useApi<{ data: KeyView[]; total: number; has_more: boolean }>(
    `/admin/v1/keys?budgeted=true&page_size=${BUDGETS_PAGE}&page=${page}`,
  );
  const columns = useMemo<Columns<KeyView>>(
    () => [
      { id: 'id', header: 'Key', accessorFn: (k) => k.id },
      { id: 'budget', header: 'Budget', accessorFn: (k) => `${money(k.budget?.amount, k.budget?.currency)} per ${k.budget?.period}` },
      { id: 'period', header: 'Period', accessorFn: (k) => k.budget_state?.period_start ?? '—' },
      { id: 'spent', header: 'Spent', accessorFn: (k) => money(k.budget_state?.spent, k.budget?.currency) },
      { id: 'left', header: 'Left', accessorFn: (k) => money(k.budget_state?.remaining, k.budget?.currency) },
    ],
    [],
  );
  return (
    <section>
      <h2>Budgets</h2>
      <LoadState error={keys.error} loading={keys.loading && !keys.data} />
      {keys.data ? (
        <>
          <DataTable
            caption={`Keys with a budget (${keys.data.total})`}
            columns={columns}
            data={keys.data.data}
            empty="No key has a budget."
            rowId={(k) => k.id}
          />
          <Pager
            label="Budget pages"
            hasPrevious={page > 1}
            hasNext={keys.data.has_more}
            onPrevious={() => setPage(page - 1)}
            onNext={() => setPage(page + 1)}
          />
        </>
      ) : null}
    </section>
  );
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

type Group = (typeof GROUPS)[number];

/**
 * The page's choices live in its address (?group_by=day&start=…&end=…), so a link or a reload shows the same
 * figures; the inputs show what the address says.
 */
export function Spend() {
  const location = useLocation();
  const initial = dayRange(30);
  const q = location.query;
  const groupBy: Group = GROUPS.includes(q.group_by as Group) ? (q.group_by as Group) : 'key';
  const range = { start: q.start || initial.start, end: q.end || initial.end };
  const choose = (change: Partial<{ group_by: string; start: string; end: string }>) =>
    location.route(`/console/spend${query({ group_by: groupBy, ...range, ...change })}`, true);
  const [csvError, setCsvError] = useState<string>();
  const path = `/admin/v1/usage${query({ ...range, group_by: groupBy })}`;
  const usage = useApi<UsageAnswer>(path);
  const columns = useMemo<Columns<UsageRow>>(
    () => [
      { id: 'group', header: GROUP_NAMES[groupBy] ?? groupBy, accessorFn: (r) => groupLabel(r[groupBy]) },
      { id: 'tasks', header: 'Tasks', accessorFn: (r) => r.tasks },
      { id: 'succeeded', header: 'Succeeded', accessorFn: (r) => r.succeeded },
      { id: 'failed', header: 'Failed', accessorFn: (r) => r.failed },
      { id: 'running', header: 'Running', accessorFn: (r) => r.running },
      { id: 'unpriced', header: 'Unpriced', accessorFn: (r) => r.unpriced },
      { id: 'seconds', header: 'Seconds', accessorFn: (r) => r.seconds },
      { id: 'images', header: 'Images', accessorFn: (r) => r.images },
      { id: 'tokens', header: 'Tokens', accessorFn: (r) => r.tokens },
      { id: 'cost', header: 'Cost', accessorFn: (r) => rowCost(r) },
    ],
    [groupBy],
  );
  const exportCsv = () => {
    setCsvError(undefined);
    apiCsv(path).then(
      (text) => download(`usage-${groupBy}-${range.start}-${range.end}.csv`, text),
      (err: unknown) => setCsvError(messageOf(err)),
    );
  };
  return (
    <>
      <h1>Spend and usage</h1>
      <form class="grid" onSubmit={(e) => e.preventDefault()}>
        {(['start', 'end'] as const).map((edge) => (
          <label key={`${edge}-${range[edge]}`}>
            {edge === 'start' ? 'From (UTC day)' : 'To (UTC day)'}
            <input
              defaultValue={range[edge]}
              pattern={DAY_PATTERN}
              placeholder="2026-11-29"
              onChange={(e) => {
                const input = e.currentTarget as HTMLInputElement;
                if (input.checkValidity()) choose({ [edge]: input.value.trim() });
              }}
            />
          </label>
        ))}
        <label>
          Per
          <select onChange={(e) => choose({ group_by: (e.currentTarget as HTMLSelectElement).value })}>
            {GROUPS.map((g) => (
              <option key={g} value={g} selected={g === groupBy}>
                {GROUP_NAMES[g] ?? g}
              </option>
            ))}
          </select>
        </label>
      </form>
      <button type="button" class="outline" onClick={exportCsv}>
        Export CSV
      </button>
      {csvError ? (
        <p role="alert" class="error">
          {csvError}
        </p>
      ) : null}
      <LoadState error={usage.error} loading={usage.loading && !usage.data} />
      {usage.data ? (
        <>
          <SpendChart
            usage={usage.data}
            label={`Cost per ${GROUP_NAMES[groupBy]?.toLowerCase() ?? groupBy}, by currency`}
            testId="spend-chart"
          />
          <DataTable
            caption={`Usage per ${GROUP_NAMES[groupBy]?.toLowerCase() ?? groupBy}, ${usage.data.start} to ${usage.data.end}`}
            columns={columns}
            data={usage.data.data}
            empty="No task in this range."
            rowId={(r) => groupLabel(r[groupBy])}
          />
        </>
      ) : null}
      <Budgets />
    </>
  );
}
