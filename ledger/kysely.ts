/**
 * Kysely, loaded once. Kysely ships only as an ES module and the gateway compiles to CommonJS, so it is imported
 * dynamically (Node ≥ 20.19 also accepts require() of it, but TypeScript's node16 mode does not); types come
 * through `import type`.
 */
export type KyselyModule = typeof import('kysely', { with: { 'resolution-mode': 'import' } });
/** Its migrator lives in a subpath of its own. */
export type KyselyMigrationModule = typeof import('kysely/migration', { with: { 'resolution-mode': 'import' } });

let loaded: Promise<KyselyModule> | undefined;
let migration: Promise<KyselyMigrationModule> | undefined;

export function loadKysely(): Promise<KyselyModule> {
  loaded ??= import('kysely');
  return loaded;
}

export function loadKyselyMigration(): Promise<KyselyMigrationModule> {
  migration ??= import('kysely/migration');
  return migration;
}
