/**
 * What a V8 CPU profile (node --cpu-prof) spent its time on: self time by function and by source file, the top
 * entries, so a benchmark's profile reads in a terminal.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function summarize(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file =
      url
        .replace(/^file:\/\//, '')
        .replace(/.*node_modules\//, 'node_modules/')
        .replace(/.*\/work\/[^/]+\//, '') || '(native)';
    byFunction.set(
      `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`,
      (byFunction.get(`${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`) ?? 0) + us,
    );
    const pkg = file.startsWith('node_modules/')
      ? file
          .split('/')
          .slice(0, file.split('/')[1]!.startsWith('@') ? 3 : 2)
          .join('/')
      : file;
    byFile.set(pkg, (byFile.get(pkg) ?? 0) + us);
  }
  const lines = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  return [
    `total ${(total / 1000).toFixed(0)} ms of samples`,
    '',
    'by function (self):',
    ...lines(byFunction),
    '',
    'by file or package (self):',
    ...lines(byFile),
    '',
    "the project's own functions (inclusive of what they call):",
    ...lines(inclusiveOfOurs(profile, byId, selfUs)),
  ].join('\n');
}

/** Inclusive time of the project's own functions (not node_modules', not Node's): what each costs with its callees. */
function inclusiveOfOurs(profile: Profile, byId: Map<number, ProfileNode>, selfUs: Map<number, number>): Map<string, number> {
  const inclusive = new Map<string, number>();
  const visit = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id)!;
    let us = selfUs.get(id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const ours =
      /\/work\//.test(url) && !url.includes('node_modules')
        ? `${functionName || '(anonymous)'} ${url.replace(/.*\/work\/[^/]+\//, '')}:${lineNumber + 1}`
        : undefined;
    const fresh = ours !== undefined && !onStack.has(ours);
    if (fresh) onStack.add(ours);
    for (const child of node.children ?? []) us += visit(child, onStack);
    if (fresh) {
      onStack.delete(ours);
      inclusive.set(ours, (inclusive.get(ours) ?? 0) + us);
    }
    return us;
  };
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  for (const n of profile.nodes) if (!childIds.has(n.id)) visit(n.id, new Set());
  return inclusive;
}

const [file, top] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-summary.ts <file.cpuprofile> [top]');
console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 30)));
