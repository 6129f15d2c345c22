/**
 * The ledger's settings, read by the API and the worker (and, for the embedded database, by `npm start`).
 */
import { z } from 'zod';
import { optionalString } from '../core/config';

export const ledgerSchema = z.object({
  /**
   * The ledger's PostgreSQL (`postgres://user:password@host:5432/db`): API keys made through the admin API,
   * budgets and each task's cost. Unset: no ledger (bootstrap keys only, no budgets, no usage).
   */
  DATABASE_URL: optionalString,
});

export type LedgerConfig = z.infer<typeof ledgerSchema>;
