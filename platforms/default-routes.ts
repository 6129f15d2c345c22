/**
 * The routes the gateway ships: the vendor models that platforms T and B both offer, as far as their public
 * documentation shows it. Each member says why it is that vendor model, with the catalogues' evidence tags
 * ([OFF] official doc text, [INF] inference from it; platforms/b/model-spec.ts). On both sides the vendor family is
 * official; on B the version is read from the model code (VOD names its models by code only: K21, H23, VE3.1F…),
 * which is an inference, so every shipped pair is as strong as [INF] and is listed as such in docs/api.md.
 *
 * - T: Tencent Cloud VOD's CreateAigcVideoTask lists ModelName Hailuo (2.3), Kling (2.1), Vidu (q2), GV (3.1,
 *   3.1-Fast) — https://cloud.tencent.com/document/api/266/126239 [OFF]. That GV is Google's Veo is read from its
 *   versions (3.1, 3.1-Fast are Veo's) [INF].
 * - B: Baidu VOD's image-to-video page groups its codes by vendor in its image-limits table — "V (Vidu: V20, VQ*)",
 *   "K (Kling)", "H (Hailuo)", "VE3.1 (Veo)" — https://cloud.baidu.com/doc/VOD/s/hm5qks2or [OFF]; the version
 *   (K21 → 2.1, H23 → 2.3, VQ2 → Q2, VE3.1F → 3.1 Fast) is the code's own spelling [INF].
 *
 * Candidates left out, because no source ties their two sides together: T's VendorK-2.5 and B's K25T (B's
 * trailing T is not explained anywhere, T names no variant of 2.5); T's VendorQ-q2-pro and B's VQ2P (what B's P
 * stands for is not documented, and VQ2P is listed for image-to-video only); T's image models GEM-2.5/3.0 (GG)
 * and B's NB/NBP (B's page names no vendor for them). An operator who knows better adds them in ROUTES_FILE.
 *
 * Order: T first, then B (`priority`). Members withdrawn by a models file are left out of their route.
 */
import type { RouteSpec } from './routes';
import { tListedVideoModel } from './t/models';

const B_FAMILIES = "B: the image-to-video page's image-limits table, https://cloud.baidu.com/doc/VOD/s/hm5qks2or";

export const DEFAULT_ROUTES: Readonly<Record<string, RouteSpec>> = {
  'kling-2.1': {
    kind: 'video',
    policy: 'priority',
    evidence: 'INF (B version from its code)',
    members: [
      { model: 'VendorK-2.1', evidence: tListedVideoModel('Kling', '2.1') },
      {
        model: 'K21',
        evidence: `K series = Kling [OFF] (${B_FAMILIES}); 21 = 2.1 [INF]; image-to-video only on B [OFF]`,
      },
    ],
  },
  'hailuo-2.3': {
    kind: 'video',
    policy: 'priority',
    evidence: 'INF (B version from its code)',
    members: [
      { model: 'VendorH-2.3', evidence: tListedVideoModel('Hailuo', '2.3') },
      { model: 'H23', evidence: `H series = Hailuo [OFF] (${B_FAMILIES}); 23 = 2.3 [INF]` },
    ],
  },
  'veo-3.1': {
    kind: 'video',
    policy: 'priority',
    evidence: 'INF (T: GV is Veo by its versions; B version from its code)',
    members: [
      { model: 'GV-3.1', evidence: `${tListedVideoModel('GV', '3.1')}; GV = Veo [INF]` },
      { model: 'VE3.1', evidence: `VE3.1 = Veo [OFF] (${B_FAMILIES}); 3.1 [INF]` },
    ],
  },
  'veo-3.1-fast': {
    kind: 'video',
    policy: 'priority',
    evidence: 'INF (T: GV is Veo by its versions; B: F = Fast from its code)',
    members: [
      { model: 'GV-3.1-fast', evidence: `${tListedVideoModel('GV', '3.1-Fast')}; GV = Veo [INF]` },
      { model: 'VE3.1F', evidence: `VE3.1 = Veo [OFF] (${B_FAMILIES}); F = Fast [INF]` },
    ],
  },
  'vidu-q2': {
    kind: 'video',
    policy: 'priority',
    evidence: 'INF (B version from its code)',
    members: [
      { model: 'VendorQ-q2', evidence: tListedVideoModel('Vidu', 'q2') },
      { model: 'VQ2', evidence: `V series = Vidu [OFF] (${B_FAMILIES}); Q2 [INF]` },
    ],
  },
};
