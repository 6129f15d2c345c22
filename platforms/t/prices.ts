/**
 * Platform T's prices. Tencent Cloud VOD's public billing pages cover transcoding and storage; no public page
 * read gives the AIGC generation prices of the models T offers, so every model's price is null until the operator
 * sets it in PRICES_FILE (fact `t.prices`, unconfirmed.ts; docs/reference/prices.md).
 */
import type { ModelPrice } from '../../pricing/price';
import { T_MODELS } from './models';

export const T_PRICES: Readonly<Record<string, ModelPrice | null>> = Object.fromEntries(T_MODELS.map((m) => [m.id, null]));
