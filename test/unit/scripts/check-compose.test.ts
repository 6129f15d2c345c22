/** docker-compose.yml keeps the properties the deployment relies on (scripts/check-compose.ts says which). */
import { resolve } from 'node:path';
import { checkCompose, parseCompose } from '../../../scripts/check-compose';

const FILE = resolve(__dirname, '..', '..', '..', 'docker-compose.yml');

type Doc = { services: Record<string, Record<string, any>> };
const load = () => parseCompose(FILE) as Doc;

describe('docker-compose.yml', () => {
  it('passes the structural check', () => {
    expect(checkCompose(load())).toEqual([]);
  });

  it('gives the API replicas a host port range, and the worker none', () => {
    const { services } = load();
    expect(services.api!.ports).toEqual(['8080-8089:8080']);
    expect(services.worker!.ports).toBeUndefined();
  });
});

describe('checkCompose', () => {
  it('names what would break healthchecks, restarts or --scale', () => {
    const doc = load();
    delete doc.services.worker!.healthcheck;
    delete doc.services.temporal!.restart;
    doc.services.api!.container_name = 'api';
    doc.services.api!.ports = ['8080:8080'];
    delete doc.services.sim!.profiles;
    expect(checkCompose(doc)).toEqual(
      expect.arrayContaining([
        'worker: no healthcheck',
        'temporal: no restart policy',
        'api: container_name prevents --scale',
        'api: fixed host port "8080:8080" prevents --scale',
        'sim: must be behind the opt-in profile "sim"',
      ]),
    );
  });

  it('names an API or worker without the ledger database (DATABASE_URL)', () => {
    const doc = load();
    delete doc.services.worker!.environment.DATABASE_URL;
    expect(checkCompose(doc)).toEqual(["worker: no DATABASE_URL (the ledger's database)"]);
  });

  it('catches search attributes and variables that drifted from the code', () => {
    const doc = load();
    doc.services['temporal-create-namespace']!.environment.SEARCH_ATTRIBUTES = 'GenerationOwner';
    doc.services.worker!.environment.TEMPORAL_ADRESS = 'temporal:7233';
    const problems = checkCompose(doc);
    expect(problems.some((p) => p.startsWith('temporal-create-namespace: SEARCH_ATTRIBUTES GenerationOwner differ'))).toBe(true);
    expect(problems).toContain('worker: TEMPORAL_ADRESS is not one of its configuration variables');
  });
});
