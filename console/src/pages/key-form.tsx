/**
 * A key's settings as a form (create and change): its model allowlist, limits, budget (with allow_unpriced) and
 * default webhook URL. Empty fields mean "none" or "the gateway's default", as the admin API reads null.
 *
 * A change sends only the fields the operator changed (compared with the key as the admin API last gave it), so
 * what was not touched is never rewritten: a budget's currency and period stay what they were when only its amount
 * changes (a new currency would start the budget again from zero).
 */
import { money } from '../format';

export interface KeyView {
  id: string;
  source: 'bootstrap' | 'admin';
  models: string[] | null;
  rate_limit_rps: number | null;
  max_inflight: number | null;
  budget: { amount: number; currency: string; period: string } | null;
  allow_unpriced: boolean;
  webhook_url: string | null;
  created_at: number | null;
  revoked_at?: number | null;
  budget_state?: { period_start: string; spent: number; remaining: number } | null;
}

type Body = Record<string, unknown>;

/** The form's settings as the admin API's fields (every field; null: none or the default). */
function formFields(form: HTMLFormElement): Body {
  const value = (name: string) => ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim();
  const num = (name: string) => (value(name) === '' ? null : Number(value(name)));
  const models = value('models')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const amount = num('budget_amount');
  return {
    models: models.length > 0 ? models : null,
    rate_limit_rps: num('rate_limit_rps'),
    max_inflight: num('max_inflight'),
    budget: amount === null ? null : { amount, currency: value('budget_currency'), period: value('budget_period') },
    allow_unpriced: (form.elements.namedItem('allow_unpriced') as HTMLInputElement).checked,
    webhook_url: value('webhook_url') || null,
  };
}

/** The key's current settings in the form's terms, to compare with. */
function currentFields(k: KeyView): Body {
  return {
    models: k.models,
    rate_limit_rps: k.rate_limit_rps,
    max_inflight: k.max_inflight,
    budget: k.budget,
    allow_unpriced: k.allow_unpriced,
    webhook_url: k.webhook_url,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** POST's body for a new key: what is set (null is for clearing a setting, which a new key has nothing to clear). */
export function createBody(form: HTMLFormElement): Body {
  const id = ((form.elements.namedItem('id') as HTMLInputElement | null)?.value ?? '').trim();
  return { id, ...Object.fromEntries(Object.entries(formFields(form)).filter(([, v]) => v !== null)) };
}

/** PATCH's body: only the fields that differ from the key as loaded. */
export function changeBody(form: HTMLFormElement, k: KeyView): Body {
  const now = formFields(form);
  const before = currentFields(k);
  return Object.fromEntries(Object.entries(now).filter(([name, v]) => !same(v, before[name])));
}

const LABELS: Record<string, string> = {
  id: 'Key id',
  budget: 'Budget',
  allow_unpriced: 'Models the budget cannot price',
  models: 'Models allowed',
  rate_limit_rps: 'Requests per second',
  max_inflight: 'Running tasks at most',
  webhook_url: 'Default webhook URL',
};

/** A setting's value in words, as the review step shows it. */
export function settingText(name: string, v: unknown): string {
  if (name === 'budget') {
    const b = v as KeyView['budget'];
    return b ? `${money(b.amount, b.currency)} per ${b.period}` : 'none';
  }
  if (name === 'allow_unpriced') return v ? 'allowed (counted at zero)' : 'refused';
  if (name === 'models') return Array.isArray(v) && v.length > 0 ? v.join(', ') : 'all';
  if (name === 'rate_limit_rps' || name === 'max_inflight') return v === null || v === undefined ? 'the gateway default' : String(v);
  if (name === 'webhook_url') return v ? String(v) : 'none';
  return String(v);
}

/** The review of a create or a change: each setting in words, and for a change what it was before. */
export function KeyReview(props: { body: Body; before?: KeyView | undefined }) {
  const entries = Object.entries(props.body);
  if (entries.length === 0) return <p>Nothing was changed.</p>;
  const before = props.before ? currentFields(props.before) : undefined;
  return (
    <dl class="review" data-testid="key-review">
      {entries.map(([name, v]) => (
        <div key={name}>
          <dt>{LABELS[name] ?? name}</dt>
          <dd>
            {settingText(name, v)}
            {before ? <small> (was {settingText(name, before[name])})</small> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A select whose starting choice is set on its options (a select has no default value of its own to set). */
function Choice(props: { name: string; label: string; value: string; options: string[] }) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        {props.options.map((o) => (
          <option key={o} value={o} selected={o === props.value}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function KeyFields(props: { keyView?: KeyView | undefined }) {
  const k = props.keyView;
  return (
    <>
      {k ? null : (
        <label>
          Key id
          <input name="id" required pattern="[A-Za-z0-9_.\-]{1,64}" placeholder="team-a" aria-describedby="key-id-help" />
          <small id="key-id-help">Letters, digits, _ . - (at most 64); never reused once revoked.</small>
        </label>
      )}
      <fieldset>
        <legend>Budget</legend>
        <div class="grid">
          <label>
            Amount
            <input
              name="budget_amount"
              type="number"
              min="0"
              step="any"
              defaultValue={k?.budget ? String(k.budget.amount) : ''}
              placeholder="none"
            />
          </label>
          <Choice name="budget_currency" label="Currency" value={k?.budget?.currency ?? 'USD'} options={['USD', 'CNY']} />
          <Choice name="budget_period" label="Period" value={k?.budget?.period ?? 'month'} options={['day', 'month', 'total']} />
        </div>
        <small>A new currency starts the budget again from zero.</small>
        <label>
          <input name="allow_unpriced" type="checkbox" role="switch" defaultChecked={k?.allow_unpriced ?? false} />
          Allow models the budget cannot price (counted at zero)
        </label>
      </fieldset>
      <label>
        Models allowed (comma-separated ids; empty: all)
        <input name="models" defaultValue={k?.models?.join(', ') ?? ''} />
      </label>
      <div class="grid">
        <label>
          Requests per second (empty: default)
          <input name="rate_limit_rps" type="number" min="0" step="any" defaultValue={k?.rate_limit_rps?.toString() ?? ''} />
        </label>
        <label>
          Running tasks at most (empty: default)
          <input name="max_inflight" type="number" min="0" step="1" defaultValue={k?.max_inflight?.toString() ?? ''} />
        </label>
      </div>
      <label>
        Default webhook URL (empty: none)
        <input name="webhook_url" type="url" defaultValue={k?.webhook_url ?? ''} placeholder="https://example.com/hooks" />
      </label>
    </>
  );
}
