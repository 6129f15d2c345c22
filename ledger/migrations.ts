/**
 * The ledger's versioned migrations, run at start by every process that opens the database (Kysely's Migrator
 * takes a lock, so replicas starting together run each migration once). Released migrations are never edited: a
 * change is a new entry.
 */
import type { Kysely } from 'kysely' with { 'resolution-mode': 'import' };
import type { Migration } from 'kysely' with { 'resolution-mode': 'import' };
import type { KyselyModule } from './kysely';

export function ledgerMigrations(k: KyselyModule): Record<string, Migration> {
  const { sql } = k;
  return {
    '2026-11-25-001-keys-budgets-ledger': {
      async up(db: Kysely<unknown>) {
        await sql`
          CREATE TABLE api_keys (
            id text PRIMARY KEY,
            digest bytea NOT NULL UNIQUE,
            models text[],
            rate_limit_rps double precision,
            max_inflight integer,
            budget_micros bigint CHECK (budget_micros >= 0),
            budget_currency text CHECK (budget_currency IN ('USD', 'CNY')),
            budget_period text CHECK (budget_period IN ('day', 'month', 'total')),
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            revoked_at timestamptz
          )`.execute(db);
        await sql`
          CREATE TABLE budget_usage (
            key_id text NOT NULL,
            period text NOT NULL,
            currency text NOT NULL,
            committed_micros bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (key_id, period)
          )`.execute(db);
        await sql`
          CREATE TABLE ledger_entries (
            task_id text PRIMARY KEY,
            key_id text NOT NULL,
            platform text NOT NULL,
            model text NOT NULL,
            currency text NOT NULL,
            budget_period text,
            estimated_micros bigint NOT NULL,
            final_micros bigint,
            state text NOT NULL CHECK (state IN ('reserved', 'settled', 'released')),
            outcome text,
            seconds double precision,
            images integer,
            tokens bigint,
            created_at timestamptz NOT NULL DEFAULT now(),
            settled_at timestamptz
          )`.execute(db);
        await sql`CREATE INDEX ledger_entries_key_created ON ledger_entries (key_id, created_at)`.execute(db);
        await sql`CREATE INDEX ledger_entries_reserved ON ledger_entries (created_at) WHERE state = 'reserved'`.execute(db);
      },
    },
    '2026-11-25-002-key-webhooks': keyWebhooksMigration(k),
    '2026-11-26-003-unpriced-entries': unpricedMigration(k),
    '2026-11-28-004-budgets-per-currency-and-request-fingerprints': budgetCurrencyMigration(k),
    '2026-11-28-005-key-max-streams': keyMaxStreamsMigration(k),
    '2026-11-29-006-console-sessions-and-account-states': consoleMigration(k),
    '2026-11-29-007-routes-and-served-by': routesMigration(k),
    '2026-11-30-008-capacity': capacityMigration(k),
    '2026-11-30-009-reconciliations': reconciliationsMigration(k),
    '2026-11-30-011-account-refusal-details-and-probes': accountProbesMigration(k),
  };
}

/**
 * The console's accounts page says why an account is out in the platform's own words, beside its code
 * (`account_states.out_detail`), and can ask for a probe now: the API writes a request (`account_probes`), which
 * every worker reads on its next write of the accounts' states and acts on (its pool ends that account's cool-down,
 * so the next create tries it). The API never reaches a worker directly: the database is their one shared place.
 */
function accountProbesMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE account_states ADD COLUMN out_detail text`.execute(db);
      await sql`
        CREATE TABLE account_probes (
          id bigserial PRIMARY KEY,
          platform text NOT NULL,
          account text NOT NULL,
          requested_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
    },
  };
}

/**
 * What the operator's console needs in the one database every replica shares:
 * - its sign-in sessions (`admin_sessions`), so a sign-out on one API replica ends the session on all of them; a
 *   session is kept by the SHA-256 of its cookie value, never the value itself;
 * - the platforms' accounts as each worker sees them (`account_states`, one row per worker and account, written by
 *   the workers every few seconds) and the accounts' recent refusals (`account_refusals`), so any API replica can
 *   say which account is out of the rotation and why without reaching a worker.
 */
function consoleMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE admin_sessions (
          digest bytea PRIMARY KEY,
          csrf_token text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          expires_at timestamptz NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX admin_sessions_expires ON admin_sessions (expires_at)`.execute(db);
      await sql`
        CREATE TABLE account_states (
          worker_id text NOT NULL,
          platform text NOT NULL,
          account text NOT NULL,
          weight double precision NOT NULL,
          in_rotation boolean NOT NULL,
          out_reason text,
          out_since timestamptz,
          out_until timestamptz,
          throttled_until timestamptz,
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (worker_id, platform, account)
        )`.execute(db);
      await sql`
        CREATE TABLE account_refusals (
          id bigserial PRIMARY KEY,
          worker_id text NOT NULL,
          platform text NOT NULL,
          account text NOT NULL,
          kind text NOT NULL CHECK (kind IN ('refused', 'throttled')),
          reason text NOT NULL,
          at timestamptz NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX account_refusals_account_at ON account_refusals (platform, account, at DESC)`.execute(db);
    },
  };
}

/**
 * Routes (platforms/routes.ts): an entry keeps the route a task named and which member served it, so usage is
 * reported by route and by the model that served (GET /v1/usage `group_by=route|served_model`). Entries written
 * before named a catalogue model, which served them.
 */
function routesMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE ledger_entries ADD COLUMN route text, ADD COLUMN served_platform text, ADD COLUMN served_model text`.execute(
        db,
      );
      await sql`UPDATE ledger_entries SET served_platform = platform, served_model = model`.execute(db);
      await sql`CREATE INDEX ledger_entries_key_route ON ledger_entries (key_id, route) WHERE route IS NOT NULL`.execute(db);
    },
  };
}

/**
 * Money no request can get around:
 * - a budget row per key, period *and currency*: a budget counts its own currency only, so changing a budget's
 *   currency starts the new currency from zero instead of reading the old currency's spend as the new one's;
 * - each entry keeps the fingerprint of the request that reserved it, so a second request under the same
 *   Idempotency-Key is told apart from a retry whatever the timing (tasks/start.ts);
 * - a key may be allowed, by its operator, to start tasks its budget cannot price (they count at zero; without it
 *   they are refused).
 */
function budgetCurrencyMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE budget_usage DROP CONSTRAINT budget_usage_pkey, ADD PRIMARY KEY (key_id, period, currency)`.execute(db);
      await sql`ALTER TABLE ledger_entries ADD COLUMN request_hash text`.execute(db);
      await sql`ALTER TABLE api_keys ADD COLUMN allow_unpriced boolean NOT NULL DEFAULT false`.execute(db);
    },
  };
}

/** A key's bound on open event streams (api/event-stream-slots.ts); null: the API's KEY_MAX_STREAMS. */
function keyMaxStreamsMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE api_keys ADD COLUMN max_streams integer CHECK (max_streams >= 0)`.execute(db);
    },
  };
}

/**
 * Why a task counts at zero against its key's budget ("budgets then count it at zero and say so"):
 * `no_price` (its model has no known price), `other_currency` (its price is in another currency than the key's
 * budget), null when it is counted at its cost. Entries written before it read null.
 */
function unpricedMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE ledger_entries ADD COLUMN unpriced text CHECK (unpriced IN ('no_price', 'other_currency'))`.execute(db);
    },
  };
}

/**
 * Webhook settings for stored keys: a default webhook URL, and the key's own signing secret with the one being
 * rotated out and until when it still signs. The secrets are kept as they are (not as digests): an HMAC
 * signature needs the secret itself, on every worker, at send time.
 */
function keyWebhooksMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`
        ALTER TABLE api_keys
          ADD COLUMN webhook_url text,
          ADD COLUMN webhook_secret text,
          ADD COLUMN webhook_secret_previous text,
          ADD COLUMN webhook_secret_previous_until timestamptz`.execute(db);
    },
  };
}

/**
 * Platform capacity (capacity/slots.ts): each account's limits, the slots tasks hold, the tasks waiting for one, and
 * each key's weight in the queue's fair share.
 */
function capacityMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE api_keys ADD COLUMN weight double precision NOT NULL DEFAULT 1`.execute(db);
      await sql`
        CREATE TABLE capacity_accounts (
          platform text NOT NULL,
          account text NOT NULL,
          configured_limit integer,
          learned_limit integer,
          created_since_change integer NOT NULL DEFAULT 0,
          learned_at timestamptz,
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (platform, account)
        )`.execute(db);
      await sql`
        CREATE TABLE capacity_leases (
          task_id text PRIMARY KEY,
          platform text NOT NULL,
          account text NOT NULL,
          member integer NOT NULL DEFAULT 0,
          owner text NOT NULL,
          state text NOT NULL CHECK (state IN ('granted', 'active')),
          created boolean NOT NULL DEFAULT false,
          granted_at timestamptz NOT NULL DEFAULT now(),
          waited_since timestamptz,
          checked_at timestamptz,
          kind text,
          upstream_task_id text,
          task_ended boolean NOT NULL DEFAULT false
        )`.execute(db);
      await sql`CREATE INDEX capacity_leases_account ON capacity_leases (platform, account)`.execute(db);
      await sql`CREATE INDEX capacity_leases_owner ON capacity_leases (owner, platform)`.execute(db);
      await sql`
        CREATE TABLE capacity_waiters (
          task_id text PRIMARY KEY,
          seq bigserial NOT NULL,
          owner text NOT NULL,
          weight double precision NOT NULL DEFAULT 1,
          candidates jsonb NOT NULL,
          accounts text[] NOT NULL,
          enqueued_at timestamptz NOT NULL DEFAULT now(),
          checked_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX capacity_waiters_accounts ON capacity_waiters USING gin (accounts)`.execute(db);
      await sql`CREATE INDEX capacity_waiters_owner_seq ON capacity_waiters (owner, seq)`.execute(db);
    },
  };
}

/**
 * Reconciliation (tasks/reconciliation.ts): one report per platform, account and UTC day — the unique key makes a
 * second run of the same day write nothing — and its differences, each of one of four kinds.
 */
function reconciliationsMigration(k: KyselyModule): Migration {
  const { sql } = k;
  return {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE reconciliation_reports (
          id text PRIMARY KEY,
          platform text NOT NULL,
          account text NOT NULL,
          day date NOT NULL,
          status text NOT NULL CHECK (status IN ('complete', 'not_available')),
          source text NOT NULL,
          note text,
          platform_jobs integer NOT NULL DEFAULT 0,
          ledger_tasks integer NOT NULL DEFAULT 0,
          orphans integer NOT NULL DEFAULT 0,
          missing integer NOT NULL DEFAULT 0,
          usage_differences integer NOT NULL DEFAULT 0,
          total_differences integer NOT NULL DEFAULT 0,
          created_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (platform, account, day)
        )`.execute(db);
      await sql`
        CREATE TABLE reconciliation_differences (
          id bigserial PRIMARY KEY,
          report_id text NOT NULL REFERENCES reconciliation_reports (id),
          kind text NOT NULL CHECK (kind IN ('orphan', 'missing', 'usage', 'total')),
          upstream_task_id text,
          task_id text,
          model text,
          at timestamptz,
          details jsonb NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX reconciliation_differences_report ON reconciliation_differences (report_id)`.execute(db);
      await sql`CREATE INDEX reconciliation_reports_day ON reconciliation_reports (day DESC)`.execute(db);
    },
  };
}
