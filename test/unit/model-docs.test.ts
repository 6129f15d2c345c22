/** docs/api.md's per-model tables are exactly what the catalogue says (regenerate with `npm run docs:models`). */
import { readFileSync } from 'node:fs';
import { buildCatalogue } from '../../platforms';
import { BEGIN, DOC_FILE, END, renderModelTables } from '../../scripts/model-docs';

test('docs/api.md carries the current model tables', () => {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const generated = doc.slice(doc.indexOf(BEGIN), doc.indexOf(END) + END.length);
  expect(generated).toBe(renderModelTables());
});

test('every catalogue model has its row', () => {
  const tables = renderModelTables();
  for (const e of buildCatalogue().entries) expect(tables).toContain(`| \`${e.id}\` | ${e.platform} | ${e.kind} |`);
});
