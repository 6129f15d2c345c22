/**
 * Platform V's protocol facts no public source confirms (docs/platforms/v.md#unconfirmed). The model facts (2.0's first/last frame and references) are on their records (models.ts); the
 * conformance run (platforms/v/conformance.ts) checks each by the same id.
 */
import type { UnconfirmedFact } from '../../core/catalogue';

export const V_UNCONFIRMED: readonly UnconfirmedFact[] = [
  {
    id: 'v.prices',
    fact: 'The Seedance models have no price: their tasks report usage (tokens) but no cost',
    why: "no official Volcengine or BytePlus price page for Seedance could be read; the per-token rates in circulation are resellers' and blog posts'",
    override:
      'PRICES_FILE {"vendor-video-1-0-pro-250528": {"currency": "CNY", "source": "<the price page or contract>", "per_token": {"per_million": <rate>, "tokens_per_second": {"480p": 9720, "720p": 22560, "1080p": 48960}}}} (one entry per model; docs/reference/prices.md)',
  },
  {
    id: 'v.endpoint-listed-model',
    fact: 'A task created through an endpoint id (ep-…) is listed with that endpoint id as its `model`',
    why: 'Ark does not say whether `model` shows the endpoint id or the model behind it',
    override:
      'none needed: for an ep-… upstream id the lost-answer lookup reads the list unfiltered and adopts the task by its seed whatever `model` shows (docs/platforms/v.md#lost-answers); a models file naming the model (not the endpoint) in "upstream" also avoids it',
  },
  {
    id: 'v.flex-models',
    fact: 'The offline tier (service_tier "flex") is taken by the 1.0 and 1.5 models, not by the 2.0 ones, and never together with draft',
    why: "third-party summaries of Ark's parameter page say so; no official page read lists the models that take flex",
    override:
      'PLATFORM_V_MODELS_FILE {"models": {"<model id>": {"capabilities": [… with or without "flex"]}}} (docs/platforms/v.md#the-offline-tier)',
  },
  {
    id: 'v.expired-unbilled',
    fact: 'A job that ends `expired` (past its execution_expires_after) is not billed: its task costs nothing',
    why: 'no official page read says whether Ark bills an expired job',
    override:
      'none in configuration: reconciliation reports a job the platform billed and the ledger did not as a usage difference (docs/guides/operate.md#reconciliation)',
  },
];
