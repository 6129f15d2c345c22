/**
 * Platform B's prices, from Baidu VOD's official "视频生成计费项" page (https://cloud.baidu.com/doc/VOD/s/dm64ry4hl):
 * video generation is billed in credits at 1 CNY per credit, a price per clip by model, mode, duration and
 * resolution (off-peak hours at about half, not modelled: the list price is the ceiling). The page prices a clip,
 * the gateway a second, so only the models whose catalogue allows exactly the durations the page prices are
 * given one here, as the clip's price divided by its duration — exact for every request those models take:
 *
 *   VQ1   文生/图生视频 5 s 1080P: 2.5 CNY        → 0.5 CNY/s at 1080p
 *   VQ1C  首尾帧生视频 5 s 1080P: 2.5 CNY         → 0.5 CNY/s at 1080p
 *   V20   图生/首尾帧 4 s 360P: 0.63, 720P: 1.25   → 0.1575 and 0.3125 CNY/s
 *
 * Every other model is null (the page's rows for them are not per second, e.g. VQ2T's 1–6 s clips at 540P cost
 * 0.19…0.50 CNY, or are not on the page): fact `b.prices` (unconfirmed.ts), PRICES_FILE sets them
 * (docs/reference/prices.md).
 */
import type { ModelPrice } from '../../pricing/price';
import { B_MODELS } from './models';

const PAGE = 'https://cloud.baidu.com/doc/VOD/s/dm64ry4hl';

const PUBLISHED: Readonly<Record<string, ModelPrice>> = {
  VQ1: { currency: 'CNY', source: PAGE, perSecond: { '1080p': 500_000 } },
  VQ1C: { currency: 'CNY', source: PAGE, perSecond: { '1080p': 500_000 } },
  V20: { currency: 'CNY', source: PAGE, perSecond: { '360p': 157_500, '720p': 312_500 } },
};

export const B_PRICES: Readonly<Record<string, ModelPrice | null>> = Object.fromEntries(
  B_MODELS.map((m) => [m.id, PUBLISHED[m.id] ?? null]),
);
