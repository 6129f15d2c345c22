/**
 * Keys: a page of them at a time (searchable), and everything the admin API does to one — create (the secret shown
 * once, with a copy button), change limits, allowlist, budget and webhook URL, rotate the webhook secret, revoke —
 * each behind a confirmation, each through the admin API so it takes effect as it would from curl.
 */
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query } from '../admin-api';
import { Pager } from '../components/pager';
import { messageOf, useAction } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm, Dialog } from '../components/dialog';
import { LoadState, Status } from '../components/status';
import { money, whenSeconds } from '../format';
import { useApi } from '../use-api';
import { changeBody, createBody, KeyFields, KeyReview, type KeyView } from './key-form';

interface KeyList {
  data: KeyView[];
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

type Pending = { title: string; label: string; danger?: boolean; text: ComponentChildren; run: () => Promise<void> };

/** Which keys the list shows: the live ones (default), the revoked ones, or both. */
const STATES = [
  ['live', 'Live'],
  ['revoked', 'Revoked'],
  ['all', 'All'],
] as const;
type KeyState = (typeof STATES)[number][0];

const PAGE_SIZE = 50;

function budgetText(k: KeyView): string {
  if (!k.budget) return 'none';
  const left = k.budget_state ? `; ${money(k.budget_state.remaining, k.budget.currency)} left` : '';
  return `${money(k.budget.amount, k.budget.currency)} per ${k.budget.period}${left}`;
}

function CreatedSecret(props: { id: string; secret: string; onClose: () => void }) {
  const [copied, setCopied] = useState<string>();
  const copy = () =>
    navigator.clipboard.writeText(props.secret).then(
      () => setCopied('Copied'),
      () => setCopied('This browser did not let the page copy: select the secret and copy it'),
    );
  return (
    <Dialog title={`Key ${props.id} created`} open onClose={props.onClose}>
      <p>This is the key's secret. It is shown this once: copy it now and hand it to its user.</p>
      {copied ? <p role="status">{copied}</p> : null}
      <pre>
        <code data-testid="new-key-secret">{props.secret}</code>
      </pre>
      <footer>
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Done
        </button>
      </footer>
    </Dialog>
  );
}

/** A stored key's changes, each behind a confirmation (a bootstrap key changes only in its file). */
function KeyActions(props: { k: KeyView; onEdit: (k: KeyView) => void; ask: (p: Pending) => void }) {
  const { k, ask } = props;
  if (k.source === 'bootstrap') return <small>read-only (API_KEYS)</small>;
  if (k.revoked_at) return <small>revoked: its id is never reused</small>;
  const path = `/admin/v1/keys/${encodeURIComponent(k.id)}`;
  return (
    <div class="actions">
      <button type="button" class="outline" onClick={() => props.onEdit(k)}>
        Edit {k.id}
      </button>
      <button
        type="button"
        class="outline"
        onClick={() =>
          ask({
            title: `Rotate the webhook secret of ${k.id}?`,
            label: 'Rotate secret',
            text: 'A new signing secret is made; the old one keeps signing beside it for a day, so receivers can switch.',
            run: async () => void (await api('PATCH', path, { rotate_webhook_secret: true })),
          })
        }
      >
        Rotate webhook secret
      </button>
      <button
        type="button"
        class="outline danger"
        onClick={() =>
          ask({
            title: `Revoke key ${k.id}?`,
            label: 'Revoke key',
            danger: true,
            text: 'The key stops working on every API replica within seconds; its id is never reused. Its tasks keep running.',
            run: async () => void (await api('DELETE', path)),
          })
        }
      >
        Revoke {k.id}
      </button>
    </div>
  );
}

/** The keys table's columns: what each key may use and spend, and its actions. */
function keyColumns(onEdit: (k: KeyView) => void, ask: (p: Pending) => void): Columns<KeyView> {
  return [
    { id: 'id', header: 'Key', accessorFn: (k) => k.id },
    { id: 'source', header: 'Source', accessorFn: (k) => k.source },
    { id: 'budget', header: 'Budget', accessorFn: (k) => budgetText(k) },
    { id: 'models', header: 'Models', accessorFn: (k) => (k.models ? k.models.join(', ') : 'all') },
    { id: 'limits', header: 'Limits', accessorFn: (k) => `${k.rate_limit_rps ?? 'default'} rps, ${k.max_inflight ?? 'default'} running` },
    { id: 'webhook', header: 'Webhook URL', accessorFn: (k) => k.webhook_url ?? '—' },
    { id: 'created', header: 'Created', accessorFn: (k) => (k.created_at ? whenSeconds(k.created_at) : '—') },
    {
      id: 'state',
      header: 'State',
      cell: ({ row }) => {
        const r = row.original.revoked_at;
        return r ? (
          <>
            <Status value="revoked" /> {whenSeconds(r)}
          </>
        ) : (
          <Status value="live" />
        );
      },
    },
    { id: 'actions', header: 'Actions', cell: ({ row }) => <KeyActions k={row.original} onEdit={onEdit} ask={ask} /> },
  ];
}

export function Keys() {
  const location = useLocation();
  const state: KeyState = STATES.some(([s]) => s === location.query.state) ? (location.query.state as KeyState) : 'live';
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const list = useApi<KeyList>(`/admin/v1/keys${query({ page, page_size: PAGE_SIZE, search, state: state === 'live' ? '' : state })}`);
  const [editing, setEditing] = useState<KeyView | 'new'>();
  const [loadError, setLoadError] = useState<string>();
  // The form starts from the key as the admin API has it now (not the list's copy, which may be older).
  const edit = (k: KeyView) => {
    setLoadError(undefined);
    api<KeyView>('GET', `/admin/v1/keys/${encodeURIComponent(k.id)}`).then(setEditing, (err: unknown) => setLoadError(messageOf(err)));
  };
  const [pending, setPending] = useState<Pending>();
  const action = useAction();
  const [created, setCreated] = useState<{ id: string; secret: string }>();

  const ask = (p: Pending) => {
    action.clear();
    setPending(p);
  };
  const confirm = async () => {
    if (!pending || !(await action.run(pending.run))) return;
    setPending(undefined);
    list.reload();
  };
  const submitForm = (e: Event) => {
    e.preventDefault();
    const creating = editing === 'new';
    const form = e.currentTarget as HTMLFormElement;
    const before = creating ? undefined : (editing as KeyView);
    const body = before ? changeBody(form, before) : createBody(form);
    const id = before ? before.id : String(body.id);
    setEditing(undefined);
    ask({
      title: creating ? `Create key ${id}?` : `Change key ${id}?`,
      label: creating ? 'Create key' : 'Save changes',
      text: <KeyReview body={body} before={before} />,
      run: async () => {
        if (!creating) {
          if (Object.keys(body).length > 0) await api('PATCH', `/admin/v1/keys/${encodeURIComponent(id)}`, body);
          return;
        }
        const made = await api<{ secret: string }>('POST', '/admin/v1/keys', body);
        setCreated({ id, secret: made.secret });
      },
    });
  };

  const columns = useMemo(() => keyColumns(edit, ask), []);

  const l = list.data;
  return (
    <>
      <h1>Keys</h1>
      <div class="toolbar">
        <button type="button" onClick={() => setEditing('new')}>
          Create key
        </button>
        <label>
          Search keys
          <input type="search" value={search} onInput={(e) => (setPage(1), setSearch((e.currentTarget as HTMLInputElement).value))} />
        </label>
        <label>
          Show
          <select
            value={state}
            onChange={(e) => (setPage(1), location.route(`/console/keys${query({ state: (e.currentTarget as HTMLSelectElement).value })}`))}
          >
            {STATES.map(([s, label]) => (
              <option key={s} value={s} selected={s === state}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {loadError ? (
        <p role="alert" class="error">
          {loadError}
        </p>
      ) : null}
      <LoadState error={list.error} loading={list.loading && !l} />
      {l ? (
        <>
          <DataTable
            caption={`Keys ${l.total === 0 ? 0 : (l.page - 1) * l.page_size + 1}–${(l.page - 1) * l.page_size + l.data.length} of ${l.total}`}
            columns={columns}
            data={l.data}
            empty="No key matches."
            rowId={(k) => k.id}
          />
          <Pager
            label="Key pages"
            hasPrevious={page > 1}
            hasNext={l.has_more}
            onPrevious={() => setPage(page - 1)}
            onNext={() => setPage(page + 1)}
          />
        </>
      ) : null}
      <Dialog
        title={editing === 'new' ? 'Create a key' : `Change key ${editing?.id ?? ''}`}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        <form onSubmit={submitForm} class="dialog-form">
          <KeyFields keyView={editing === 'new' ? undefined : editing} />
          <footer class="sticky-footer">
            <button type="submit">Review</button>
          </footer>
        </form>
      </Dialog>
      <Confirm
        title={pending?.title ?? ''}
        open={pending !== undefined}
        confirmLabel={pending?.label ?? ''}
        danger={pending?.danger}
        busy={action.busy}
        error={action.error}
        onConfirm={() => void confirm()}
        onClose={() => setPending(undefined)}
      >
        {typeof pending?.text === 'string' ? <p>{pending.text}</p> : pending?.text}
      </Confirm>
      {created ? <CreatedSecret id={created.id} secret={created.secret} onClose={() => setCreated(undefined)} /> : null}
    </>
  );
}
