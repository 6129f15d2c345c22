/**
 * Platform V's prices. Ark bills Seedance by output tokens (tokens = width × height × fps × seconds / 1024, and
 * the task reports what it billed as `usage.completion_tokens`: docs/platforms/v.md#calls), so a V price is `perToken`.
 * No official Volcengine or BytePlus price page for the Seedance models could be read (the rates found were
 * resellers' and blog posts'), so every model's price is null until the operator sets it in PRICES_FILE
 * (fact `v.prices`, unconfirmed.ts; docs/reference/prices.md).
 */
import type { ModelPrice } from '../../pricing/price';
import { V_MODELS } from './models';

export const V_PRICES: Readonly<Record<string, ModelPrice | null>> = Object.fromEntries(V_MODELS.map((m) => [m.id, null]));
