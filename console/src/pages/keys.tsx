/**
 * Keys: a page of them at a time (searchable), and everything the admin API does to one — create (the secret shown
 * once, with a copy button), change limits, allowlist, budget and webhook URL, rotate the webhook secret, revoke —
 * each behind a confirmation, each through the admin API so it takes effect as it would from curl.
 */
import { useMemo, useState } from 'preact/hooks';
import { api, query } from '../admin-api';
import { Pager } from '../components/pager';
import { useAction } from '../use-action';
import { DataTable, type Columns } from '../components/data-table';
import { Confirm, Dialog } from '../components/dialog';
import { LoadState } from '../components/status';
import { money, when } from '../format';
import { useApi } from '../use-api';
import { KeyFields, keyBody, type KeyView } from './key-form';

interface KeyList {
  data: KeyView[];
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

type Pending = { title: string; label: string; danger?: boolean; text: string; run: () => Promise<void> };

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
    { id: 'created', header: 'Created', accessorFn: (k) => (k.created_at ? when(new Date(k.created_at * 1000).toISOString()) : '—') },
    { id: 'actions', header: 'Actions', cell: ({ row }) => <KeyActions k={row.original} onEdit={onEdit} ask={ask} /> },
  ];
}

export function Keys() {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const list = useApi<KeyList>(`/admin/v1/keys${query({ page, page_size: PAGE_SIZE, search })}`);
  const [editing, setEditing] = useState<KeyView | 'new'>();
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
    const body = keyBody(e.currentTarget as HTMLFormElement, creating);
    const id = creating ? String(body.id) : (editing as KeyView).id;
    setEditing(undefined);
    ask({
      title: creating ? `Create key ${id}?` : `Change key ${id}?`,
      label: creating ? 'Create key' : 'Save changes',
      text: JSON.stringify(body, null, 2),
      run: async () => {
        if (!creating) return void (await api('PATCH', `/admin/v1/keys/${encodeURIComponent(id)}`, body));
        const made = await api<{ secret: string }>('POST', '/admin/v1/keys', body);
        setCreated({ id, secret: made.secret });
      },
    });
  };

  const columns = useMemo(() => keyColumns(setEditing, ask), []);

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
      </div>
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
        <form onSubmit={submitForm}>
          <KeyFields keyView={editing === 'new' ? undefined : editing} />
          <button type="submit">Review</button>
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
        <pre>{pending?.text}</pre>
      </Confirm>
      {created ? <CreatedSecret id={created.id} secret={created.secret} onClose={() => setCreated(undefined)} /> : null}
    </>
  );
}
