/** How the console writes money, times and states. */

/** An amount with its currency, to the cent's precision the ledger keeps (up to 6 decimals, trailing zeros cut). */
export function money(amount: number | null | undefined, currency?: string): string {
  if (amount === null || amount === undefined) return '—';
  const text = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
  return currency ? `${text} ${currency}` : text;
}

/** A task's or cost object's cost: amount and currency, "estimated" while it runs, "no price" when unpriced. */
export function costText(cost: { amount: number; currency: string; estimated: boolean } | null | undefined): string {
  if (!cost) return 'no price';
  return `${money(cost.amount, cost.currency)}${cost.estimated ? ' (estimate)' : ''}`;
}

/**
 * The console's one way to write an instant: "2026-11-29 05:11 UTC" (ISO 8601's order, UTC, to the minute), the
 * same on every page whatever the browser's locale. The time inputs take the same text (see `instantOf`).
 */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An instant given in Unix seconds (the keys' created_at and revoked_at), written as `when` writes one. */
export function whenSeconds(seconds: number): string {
  return when(new Date(seconds * 1000).toISOString());
}

/** The pattern of a time input: "2026-11-29 05:11" (UTC), as `when` writes it without the zone. */
export const INSTANT_PATTERN = '\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2})?';
/** The pattern of a day input: "2026-11-29". */
export const DAY_PATTERN = '\\d{4}-\\d{2}-\\d{2}';

/** A time input's text ("2026-11-29 05:11", or a day: its start), taken as UTC, as the API's ISO instant; undefined if empty. */
export function instantOf(text: string | undefined): string | undefined {
  const t = text?.trim();
  if (!t) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?$/.exec(t);
  return m ? `${m[1]}T${m[2] ?? '00:00'}:00Z` : t;
}

/** Today and `days` ago as YYYY-MM-DD (UTC), the usage API's days. */
export function dayRange(days: number): { start: string; end: string } {
  const end = new Date();
  const start = new Date(end.getTime() - days * 86_400_000);
  return { start: start.toISOString().slice(0, 10), end: end.toISOString().slice(0, 10) };
}
