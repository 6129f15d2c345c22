/**
 * Kysely, loaded once, imported dynamically (its 0.29 line ships only as an ES module; 0.28, pinned for Node 20,
 * ships both, so this works with either); types come through `import type`.
 */
export type KyselyModule = typeof import('kysely', { with: { 'resolution-mode': 'import' } });
/** Its migrator (in the main module up to 0.28; 0.29 moved it to `kysely/migration`). */
export type KyselyMigrationModule = typeof import('kysely', { with: { 'resolution-mode': 'import' } });

let loaded: Promise<KyselyModule> | undefined;
let migration: Promise<KyselyMigrationModule> | undefined;

export function loadKysely(): Promise<KyselyModule> {
  loaded ??= import('kysely');
  return loaded;
}

export function loadKyselyMigration(): Promise<KyselyMigrationModule> {
  migration ??= import('kysely');
  return migration;
}
