/**
 * docs/api.md's generated parts are exactly what the catalogue and the platforms' data say (regenerate with
 * `npm run docs:models`): the per-model tables and each platform's own sections (B's field mapping).
 */
import { readFileSync } from 'node:fs';
import { buildCatalogue } from '../../../platforms';
import { currentSection, docSections, DOC_FILE, renderModelTables } from '../../../scripts/model-docs';

test('docs/api.md carries every generated section, current', () => {
  const doc = readFileSync(DOC_FILE, 'utf8');
  const sections = docSections();
  expect(sections.length).toBeGreaterThanOrEqual(2);
  for (const section of sections) expect(currentSection(doc, section)).toBe(section.render());
});

test('every catalogue model has its row', () => {
  const tables = renderModelTables();
  for (const e of buildCatalogue().entries) expect(tables).toContain(`| \`${e.id}\` | ${e.platform} | ${e.kind} |`);
});
