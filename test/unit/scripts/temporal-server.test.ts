/**
 * `npm run cluster` runs the Temporal server docker-compose runs (scripts/temporal-server.ts), and its
 * configuration is the one the server accepts (the server itself is exercised by test/system/topology.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { freePortAtMost } from '../../../scripts/free-port';
import { HISTORY_SHARDS, serverConfig, TEMPORAL_SERVER_VERSION, type TemporalServerPorts } from '../../../scripts/temporal-server';

const compose = parse(readFileSync(join(__dirname, '..', '..', '..', 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { image: string }>;
};
/** `${TEMPORAL_VERSION:-1.30.1}` → 1.30.1 */
const defaultTag = (image: string) => /:\$\{[A-Z_]+:-([^}]+)\}$/.exec(image)?.[1];

test('the server built from the Go module is the version docker-compose runs (server and admin tools)', () => {
  expect(`v${defaultTag(compose.services.temporal!.image)}`).toBe(TEMPORAL_SERVER_VERSION);
  expect(`v${defaultTag(compose.services['temporal-admin-tools']!.image)}`).toBe(TEMPORAL_SERVER_VERSION);
});

test('membership ports fit the SMALLINT column the server stores them in', async () => {
  for (let i = 0; i < 20; i++) expect(await freePortAtMost(32_767)).toBeLessThanOrEqual(32_767);
});

test('the config names our PostgreSQL for both stores, SQL visibility, the shard count and every port', () => {
  const ports: TemporalServerPorts = {
    frontend: 7233,
    frontendHttp: 7243,
    frontendMembership: 6933,
    history: 7234,
    historyMembership: 6934,
    matching: 7235,
    matchingMembership: 6935,
    worker: 7239,
    workerMembership: 6939,
    metrics: 8000,
  };
  const config = serverConfig({ host: '127.0.0.1', port: 5499, user: 'u', password: 'p' }, ports, '/x/dyn.yaml') as {
    persistence: {
      defaultStore: string;
      visibilityStore: string;
      numHistoryShards: number;
      datastores: Record<string, { sql: { pluginName: string; databaseName: string; connectAddr: string } }>;
    };
    services: Record<string, { rpc: { grpcPort: number; membershipPort: number } }>;
    dynamicConfigClient: { filepath: string };
  };
  expect(config.persistence.numHistoryShards).toBe(HISTORY_SHARDS);
  const stores = config.persistence.datastores;
  expect(stores[config.persistence.defaultStore]!.sql).toMatchObject({
    pluginName: 'postgres12',
    databaseName: 'temporal',
    connectAddr: '127.0.0.1:5499',
  });
  expect(stores[config.persistence.visibilityStore]!.sql).toMatchObject({
    pluginName: 'postgres12',
    databaseName: 'temporal_visibility',
    connectAddr: '127.0.0.1:5499',
  });
  expect(Object.fromEntries(Object.entries(config.services).map(([k, v]) => [k, [v.rpc.grpcPort, v.rpc.membershipPort]]))).toEqual({
    frontend: [7233, 6933],
    history: [7234, 6934],
    matching: [7235, 6935],
    worker: [7239, 6939],
  });
  expect(config.dynamicConfigClient.filepath).toBe('/x/dyn.yaml');
});
