/**
 * Waits for `fn` to yield a value (anything but undefined or false), checking every 25 ms; throws after
 * `timeoutMs`. For things that happen asynchronously by design (a callback delivered, an event queued).
 */
export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves after `ms`: for pacing load or waiting out a window, never for waiting on a result (use waitFor). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
