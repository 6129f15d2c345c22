/** `npm start`'s banner prints a secret only when it generated the key itself (scripts/start.ts). */
import { adminLine, keyLine, simulatedLine } from '../../scripts/start';
import { loadWorkerConfig } from '../../worker/worker-config';

test('the generated key is shown, with where it is kept', () => {
  expect(keyLine('local:sk-abc123')).toBe('API key:     sk-abc123   (kept in data/dev-api-key)');
});

test("an operator's own keys (API_KEYS) are never printed", () => {
  expect(keyLine(undefined)).toBe('API key:     one of API_KEYS (not shown)');
});

test('the simulator line names the port the simulator listens on (SIM_PORT), not 8090', () => {
  const worker = loadWorkerConfig({ SIM_PORT: '9123' });
  expect(simulatedLine(['T', 'V'], worker.SIM_BASE_URL)).toBe('Simulated:   platforms T, V (simulator at http://127.0.0.1:9123)');
  expect(simulatedLine([], worker.SIM_BASE_URL)).toBe('Simulated:   none');
});

test("the admin token npm start made is shown, with where it is kept; an operator's ADMIN_TOKEN never is", () => {
  expect(adminLine('tok-0123456789abcdef0123456789abcdef')).toBe(
    'Admin token: tok-0123456789abcdef0123456789abcdef   (kept in data/dev-admin-token)',
  );
  expect(adminLine(undefined)).toBe('Admin token: ADMIN_TOKEN (not shown)');
});
