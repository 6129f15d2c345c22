/**
 * A key's settings as a form (create and change): its model allowlist, limits, budget (with allow_unpriced) and
 * default webhook URL. Empty fields mean "none" or "the gateway's default", as the admin API reads null.
 */
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
  budget_state?: { period_start: string; spent: number; remaining: number } | null;
}

/** The admin API's body from the form (PATCH sends every field, so a cleared one goes back to its default). */
export function keyBody(form: HTMLFormElement, creating: boolean): Record<string, unknown> {
  const value = (name: string) => ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim();
  const num = (name: string) => (value(name) === '' ? null : Number(value(name)));
  const models = value('models')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const amount = num('budget_amount');
  const body: Record<string, unknown> = {
    models: models.length > 0 ? models : null,
    rate_limit_rps: num('rate_limit_rps'),
    max_inflight: num('max_inflight'),
    budget: amount === null ? null : { amount, currency: value('budget_currency'), period: value('budget_period') },
    allow_unpriced: (form.elements.namedItem('allow_unpriced') as HTMLInputElement).checked,
    webhook_url: value('webhook_url') || null,
  };
  if (!creating) return body;
  // A new key leaves out what is not set (null is for clearing a setting).
  return { id: value('id'), ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)) };
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
          <label>
            Currency
            <select name="budget_currency" defaultValue={k?.budget?.currency ?? 'USD'}>
              <option>USD</option>
              <option>CNY</option>
            </select>
          </label>
          <label>
            Period
            <select name="budget_period" defaultValue={k?.budget?.period ?? 'month'}>
              <option value="day">day</option>
              <option value="month">month</option>
              <option value="total">total</option>
            </select>
          </label>
        </div>
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
