/**
 * platforms/t/day-totals.ts on the wire, against a recording HTTP double: reconciliation's day totals are one signed
 * DescribeAigcUsageData per AigcType (Video, Image) for the UTC day, 00:00:00Z to 23:59:59Z (under a day: 5-minute
 * intervals), paced before each request, summed over every Specification and only over intervals within the day.
 */
import { createPlatformT, T_CONTENT_TYPE } from '../../../../platforms/t/adapter';
import { tc3Sign } from '../../../../platforms/t/signing';
import { sumTUsage } from '../../../../platforms/t/day-totals';
import { fakeT, NOW, SETTINGS } from '../../../support/platforms/t';

const DAY = Date.UTC(2026, 10, 28);

test('day totals: a signed DescribeAigcUsageData per AigcType for the UTC day, paced, its Usage and Count summed', async () => {
  const { http, sent } = fakeT({
    DescribeAigcUsageData: (body) =>
      body.AigcType === 'Video'
        ? {
            AigcUsageDataSet: [
              { Specification: 'GV', DataSet: [{ Time: '2026-11-28T08:05:00+08:00', Count: 2, Usage: 16 }] },
              { Specification: 'Kling2.5pro_720P', DataSet: [{ Time: '2026-11-28T23:55:00Z', Count: 1, Usage: 5 }] },
            ],
          }
        : { AigcUsageDataSet: [{ Specification: 'GG', DataSet: [{ Time: '2026-11-28T12:00:00Z', Count: 1, Usage: 4 }] }] },
  });
  let paced = 0;
  const totals = createPlatformT(SETTINGS, { http, now: () => NOW }).dayTotals!;
  expect(totals.quantities).toEqual(['video_seconds', 'images']);
  await expect(totals.day(DAY, async () => void paced++)).resolves.toEqual([
    { quantity: 'video_seconds', value: 21, count: 3 },
    { quantity: 'images', value: 4, count: 1 },
  ]);
  expect(paced).toBe(2);
  expect(sent.map((s) => [s.action, s.body])).toEqual([
    ['DescribeAigcUsageData', { StartTime: '2026-11-28T00:00:00Z', EndTime: '2026-11-28T23:59:59Z', AigcType: 'Video', SubAppId: 7 }],
    ['DescribeAigcUsageData', { StartTime: '2026-11-28T00:00:00Z', EndTime: '2026-11-28T23:59:59Z', AigcType: 'Image', SubAppId: 7 }],
  ]);
  const [first] = sent;
  expect(first!.headers).toMatchObject({ 'x-tc-action': 'DescribeAigcUsageData', 'x-tc-version': '2018-07-17' });
  const expected = tc3Sign({
    secretId: 'AKIDtest',
    secretKey: 'key',
    service: 'vod',
    timestamp: NOW / 1000,
    headers: { 'content-type': T_CONTENT_TYPE, host: '127.0.0.1:8090' },
    payload: JSON.stringify(first!.body),
  });
  expect(first!.headers.authorization).toBe(expected.authorization);
});

test('intervals outside the UTC day, and missing fields, add nothing', () => {
  const res = {
    AigcUsageDataSet: [
      {
        DataSet: [
          { Time: '2026-11-28T07:55:00+08:00', Count: 9, Usage: 90 }, // 23:55 the day before, UTC
          { Time: '2026-11-29T00:00:00Z', Count: 9, Usage: 90 },
          { Time: '2026-11-28T00:00:00Z' },
          { Time: 'not a time', Count: 9, Usage: 90 },
          { Time: '2026-11-28T00:00:00Z', Count: 1, Usage: 8 },
        ],
      },
      {},
    ],
  };
  expect(sumTUsage(res, DAY)).toEqual({ count: 1, usage: 8 });
  expect(sumTUsage({}, DAY)).toEqual({ count: 0, usage: 0 });
});
