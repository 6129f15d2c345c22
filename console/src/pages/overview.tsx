/**
 * The overview: tasks by status and platform in the last hour or day, spend per day this month, the failures now and
 * why, webhook events not yet delivered, and accounts out of the rotation; each links to the page that goes deeper.
 */
import { useState } from 'preact/hooks';
import { query } from '../admin-api';
import { dayRange } from '../format';
import { LoadState, Status } from '../components/status';
import { SpendChart, type UsageAnswer } from '../spend-chart';
import { useApi } from '../use-api';

interface OverviewAnswer {
  since: string;
  tasks: { platform: string; status: string; count: number }[];
  failing: { reason: string; count: number }[];
  webhooks: { pending: number; retrying: number };
  accounts_out: { platform: string; account: string; state: string; out_reason: string | null }[];
  /** Tasks waiting for platform capacity now. */
  tasks_waiting?: number;
}

const STATUSES = ['pending', 'running', 'success', 'failed', 'cancelled'];

function TasksByPlatform(props: { tasks: OverviewAnswer['tasks']; since: string }) {
  const platforms = [...new Set(props.tasks.map((t) => t.platform))];
  const count = (p: string, s: string) => props.tasks.find((t) => t.platform === p && t.status === s)?.count ?? 0;
  return (
    <div class="overflow-auto">
      <table>
        <caption>
          Tasks started since {new Date(props.since).toISOString().slice(0, 16).replace('T', ' ')} UTC, by platform and status
        </caption>
        <thead>
          <tr>
            <th scope="col">Platform</th>
            {STATUSES.map((s) => (
              <th scope="col" key={s}>
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {platforms.map((p) => (
            <tr key={p}>
              <th scope="row">{p}</th>
              {STATUSES.map((s) => (
                <td key={s}>
                  <a href={`/console/tasks${query({ platform: p, status: s })}`}>{count(p, s)}</a>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Failing(props: { failing: OverviewAnswer['failing'] }) {
  if (props.failing.length === 0) return <p>No task failed in this window.</p>;
  return (
    <ul>
      {props.failing.map((f) => (
        <li key={f.reason}>
          <a href={`/console/tasks${query({ status: 'failed', failure_reason: f.reason })}`}>
            {f.count} failed with <Status value={f.reason} />
          </a>
        </li>
      ))}
    </ul>
  );
}

export function Overview() {
  const [window, setWindow] = useState<'hour' | 'day'>('hour');
  const overview = useApi<OverviewAnswer>(`/admin/v1/overview?window=${window}`);
  const spend = useApi<UsageAnswer>(`/admin/v1/usage${query({ ...dayRange(30), group_by: 'day' })}`);
  const o = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <fieldset role="group" aria-label="Window">
        <button type="button" class={window === 'hour' ? '' : 'outline'} aria-pressed={window === 'hour'} onClick={() => setWindow('hour')}>
          Last hour
        </button>
        <button type="button" class={window === 'day' ? '' : 'outline'} aria-pressed={window === 'day'} onClick={() => setWindow('day')}>
          Last day
        </button>
      </fieldset>
      <LoadState error={overview.error} loading={overview.loading && !o} />
      {o ? (
        <>
          <section>
            <TasksByPlatform tasks={o.tasks} since={o.since} />
          </section>
          <div class="grid">
            <section>
              <h2>Failing now</h2>
              <Failing failing={o.failing} />
            </section>
            <section>
              <h2>Webhooks not yet delivered</h2>
              <p>
                <a href="/console/deliveries?state=pending">{o.webhooks.pending} being sent</a>,{' '}
                <a href="/console/deliveries?state=retrying">{o.webhooks.retrying} retrying</a>
              </p>
            </section>
            <section>
              <h2>Waiting for platform capacity</h2>
              <p data-testid="tasks-waiting">
                {(o.tasks_waiting ?? 0) === 0 ? (
                  'No task is waiting: every account has room.'
                ) : (
                  <a href="/console/accounts">{o.tasks_waiting} waiting for a free slot on a platform account</a>
                )}
              </p>
            </section>
            <section>
              <h2>Accounts out of rotation</h2>
              {o.accounts_out.length === 0 ? (
                <p>Every account is in the rotation.</p>
              ) : (
                <ul>
                  {o.accounts_out.map((a) => (
                    <li key={`${a.platform}/${a.account}`}>
                      <a href="/console/accounts">
                        {a.platform} {a.account}
                      </a>
                      : <Status value={a.state} /> {a.out_reason ?? ''}
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        </>
      ) : null}
      <section>
        <h2>Spend per day (last 30 days)</h2>
        <LoadState error={spend.error} loading={spend.loading && !spend.data} />
        {spend.data ? <SpendChart usage={spend.data} label="Spend per day, by currency" testId="overview-spend-chart" /> : null}
      </section>
    </>
  );
}
