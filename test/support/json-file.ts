/** An operator's JSON file (a prices file, a models file) in a fresh temporary directory; returns its path. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function writeJsonFile(json: unknown, name = 'file.json'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'mediagate-')), name);
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
  return path;
}
