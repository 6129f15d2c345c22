/**
 * Reading Prometheus text pages (the API's and workers' /metrics), for tests and the benchmarks alike (bench/
 * imports it from here). No jest in here: the benchmarks run outside jest.
 */

/** The text of a metrics page; throws when the process has no metrics URL or the page does not answer 200. */
export async function scrape(url: string | undefined): Promise<string> {
  if (!url) throw new Error('no metrics URL for this process');
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** Sum of the samples of one metric whose labels include `labels`, from a Prometheus text page (0 when none). */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) {
    const have = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[2]);
  }
  return sum;
}
