/**
 * sim/t/day-totals.ts, over real HTTP: DescribeAigcUsageData computed from the simulator's own jobs of the SubAppId —
 * only succeeded tasks, Usage in seconds (Video) or images (Image), 5-minute intervals under a day and UTC+8 days
 * over it, another account's tasks never — and its documented refusals.
 */
import { simTAccount } from '../../../../sim/accounts';
import { SIM_JOB_END_BOUND_MS } from '../../../support/simulator';
import { finished, signedBy, SUB, t, useTSimulator, video, image } from '../../../support/sim/t';
import { waitFor } from '../../../support/wait-for';

useTSimulator();

const DAY_MS = 86_400_000;
/** DescribeAigcUsageData of today (UTC), unless `body` says otherwise. */
function usage(body: Record<string, unknown>, o = {}) {
  const day = new Date().toISOString().slice(0, 10);
  return t('DescribeAigcUsageData', { SubAppId: SUB, StartTime: `${day}T00:00:00Z`, EndTime: `${day}T23:59:59Z`, ...body }, o);
}
const sumOf = (r: any, field: 'Count' | 'Usage') =>
  (r.AigcUsageDataSet as any[]).flatMap((s) => s.DataSet as any[]).reduce((n, p) => n + p[field], 0);

test('a day under 24 h: succeeded tasks only, in 5-minute intervals, Usage in seconds of video and in images', async () => {
  // One at a time: T runs one task of an account at once by default (more fail RequestLimitExceeded).
  for (const [action, body] of [
    ['CreateAigcVideoTask', video({ OutputConfig: { Duration: 8 } })],
    ['CreateAigcVideoTask', video({ Prompt: 'no [sim:fail=content_policy]', OutputConfig: { Duration: 8 } })],
    ['CreateAigcImageTask', image()],
  ] as const) {
    await finished((await t(action, body)).TaskId);
  }

  const videos = await usage({ AigcType: 'Video' });
  expect(videos.AigcUsageDataSet).toEqual([
    {
      Specification: expect.any(String),
      DataSet: [{ Time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d[05]:00\+08:00$/), Count: 1, Usage: 8 }],
    },
  ]);
  const images = await usage({ AigcType: 'Image' });
  expect([sumOf(images, 'Count'), sumOf(images, 'Usage')]).toEqual([1, 1]);
  expect((await usage({ AigcType: 'Text' })).AigcUsageDataSet).toEqual([]);
});

test('a span over a day is answered in UTC+8 days; another account’s tasks are never counted', async () => {
  const mine = await t('CreateAigcVideoTask', video({ OutputConfig: { Duration: 8 } }));
  expect(mine.TaskId).toEqual(expect.any(String));
  const other = simTAccount('other');
  const theirs = await t('CreateAigcVideoTask', video({ SubAppId: other.subAppId, OutputConfig: { Duration: 8 } }), signedBy(other));
  expect(theirs.TaskId).toEqual(expect.any(String));
  await finished(mine.TaskId);
  await waitFor(async () => {
    const d = await t('DescribeTaskDetail', { SubAppId: other.subAppId, TaskId: theirs.TaskId }, signedBy(other));
    return d.Status === 'FINISH' ? d : undefined;
  }, SIM_JOB_END_BOUND_MS);
  const from = new Date(Date.now() - 2 * DAY_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const days = await usage({ AigcType: 'Video', StartTime: from, EndTime: new Date(Date.now() + 60_000).toISOString() });
  const [point] = days.AigcUsageDataSet[0].DataSet;
  expect(days.AigcUsageDataSet[0].DataSet).toHaveLength(1);
  expect(point).toEqual({ Time: expect.stringMatching(/T00:00:00\+08:00$/), Count: 1, Usage: 8 });
});

test('refusals: a missing or unknown AigcType, an end before the start, more than 90 days, older than 365 days', async () => {
  const code = async (body: Record<string, unknown>) => (await usage(body)).Error?.Code;
  expect(await code({})).toBe('MissingParameter');
  expect(await code({ AigcType: 'Sound' })).toBe('InvalidParameterValue');
  expect(await code({ AigcType: 'Video', EndTime: '2000-01-01T00:00:00Z' })).toBe('InvalidParameterValue');
  const old = new Date(Date.now() - 400 * DAY_MS).toISOString();
  expect(await code({ AigcType: 'Video', StartTime: old, EndTime: new Date(Date.now() - 380 * DAY_MS).toISOString() })).toBe(
    'InvalidParameterValue',
  );
  expect(await code({ AigcType: 'Video', StartTime: new Date(Date.now() - 100 * DAY_MS).toISOString() })).toBe('InvalidParameterValue');
  expect(await code({ AigcType: 'Video', Limit: 3 })).toBe('UnknownParameter');
});
