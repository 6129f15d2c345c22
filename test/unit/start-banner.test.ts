/** `npm start`'s banner prints a secret only when it generated the key itself (scripts/start.ts). */
import { keyLine } from '../../scripts/start';

test('the generated key is shown, with where it is kept', () => {
  expect(keyLine('local:sk-abc123')).toBe('API key:     sk-abc123   (kept in data/dev-api-key)');
});

test("an operator's own keys (API_KEYS) are never printed", () => {
  expect(keyLine(undefined)).toBe('API key:     one of API_KEYS (not shown)');
});
