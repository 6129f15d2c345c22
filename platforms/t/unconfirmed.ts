/**
 * Platform T's protocol facts no public source confirms (docs/platforms/t.md#unconfirmed). The model facts (Kling's sound) are on their records (models.ts). Each names what to change when a
 * real account disagrees; the conformance run (platforms/t/conformance.ts) checks each by the same id.
 */
import type { UnconfirmedFact } from '../../core/catalogue';

export const T_UNCONFIRMED: readonly UnconfirmedFact[] = [
  {
    id: 't.prices',
    fact: 'The models of platform T have no price: their tasks report usage (seconds, images) but no cost',
    why: "Tencent Cloud VOD's public billing pages read cover transcoding and storage, not the AIGC models' generation",
    override:
      'PRICES_FILE {"GV-3.1": {"currency": "CNY", "source": "<the price page or contract>", "per_second": {"720p": <rate>, "1080p": <rate>}}} (per_image for image models; docs/reference/prices.md)',
  },
  {
    id: 't.describe-tasks-lists-aigc',
    fact: 'DescribeTasks lists AIGC tasks (AigcVideoTask, AigcImageTask) with their SessionId, so a lost create answer is found by its SessionId',
    why: 'DescribeTasks documents TaskType values Procedure, EditMedia, … and no AIGC type',
    override:
      'LOST_ANSWER_SEARCH_MS (worker): when the list never shows AIGC tasks a lost answer can only end upstream_lost, so a short search (e.g. 30000) ends it sooner; no second job either way',
  },
  {
    id: 't.session-id-repeat-code',
    fact: 'A create repeating a SessionId is refused with InvalidParameterValue.SessionId, and no second job is created',
    why: 'the SDK says only that such a request "会返回错误" (returns an error), not which',
    override:
      'none for the code: the gateway does not key on it (any final refusal after an unanswered create means "keep looking", docs/platforms/t.md#lost-answers); were a second job created, no setting makes a repeat safe: report it and take T out of PLATFORMS_ENABLED',
  },
  {
    id: 't.aigc-usage-units',
    fact: "DescribeAigcUsageData's Usage is seconds of generated video for AigcType Video and images for Image, counts only successfully generated output, and places a task in the 5-minute interval it was created in",
    why: 'the page and the SDK say only "任务用量" (task usage) and "任务数" (task count), with no unit, no word on failed tasks, and no word on which time an interval counts a task by',
    override:
      "none: reconciliation then reports a `total` difference on every day with tasks (docs/platforms/t.md#reconciliation), the sign to read the unit off T's console and correct platforms/t/day-totals.ts",
  },
];
