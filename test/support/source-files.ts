/** The repository's TypeScript sources, for tests that check the code itself (architecture, copied helpers). */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts file under `dir`, recursively, leaving out folders named in `skip`. */
export function tsFiles(dir: string, skip: readonly string[] = []): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return skip.includes(name) ? [] : tsFiles(path, skip);
    return name.endsWith('.ts') ? [path] : [];
  });
}
