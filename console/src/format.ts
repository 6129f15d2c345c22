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

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { timeZone: 'UTC', hour12: false }) + ' UTC';
}

/** Today and `days` ago as YYYY-MM-DD (UTC), the usage API's days. */
export function dayRange(days: number): { start: string; end: string } {
  const end = new Date();
  const start = new Date(end.getTime() - days * 86_400_000);
  return { start: start.toISOString().slice(0, 10), end: end.toISOString().slice(0, 10) };
}
