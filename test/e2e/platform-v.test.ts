/**
 * Platform V over real HTTP: every content mode on the wire with the corrections (generate_audio false unless
 * asked, web search as tools, the seed marker, execution_expires_after from the task deadline), `expired` as a
 * final failure, quota 429s as final, rate-limit 429s and 5xx survived — and a create whose answer was lost
 * reconciled through the task list: exactly one upstream job, a successful task.
 */
import { sharedStack } from '../support/shared-stack';
import { unique } from '../support/prompts';

const { api, sim } = sharedStack();
const alice = api('alice');

async function submitsFor(prompt: string) {
  return (await sim.requests('V', 'submit')).filter((r) => r.body?.content?.[0]?.text === prompt);
}

/** The jobs V holds for a prompt: what it would bill. */
async function jobsFor(prompt: string) {
  return (await sim.jobs('V')).filter((j) => j.meta?.request?.content?.[0]?.text === prompt);
}

/** How many times the gateway polled an upstream job. */
async function pollsOf(jobId: string) {
  return (await sim.requests('V', 'poll')).filter((p) => p.path.endsWith(`/tasks/${jobId}`)).length;
}

/** The default video deadline is 60 min: less than the platform's minimum execution window, so the minimum. */
const EXPIRES_AFTER = 3600;

describe('platform V, end to end', () => {
  test('2.0 multimodal: reference images, videos and audios, sound, web search, return_last_frame', async () => {
    const prompt = unique('remix the scene');
    const r = await alice.post('/v1/videos/generations', {
      model: 'vendor-video-2-0-260128',
      prompt,
      images: [{ url: 'https://x.test/r1.png', role: 'reference_image' }, { url: 'https://x.test/r2.png' }],
      videos: [{ url: 'https://x.test/v.mp4' }],
      audio_url: 'https://x.test/a.mp3',
      audios: [{ url: 'https://x.test/a2.mp3' }],
      generate_audio: true,
      web_search: true,
      return_last_frame: true,
      watermark: true,
      resolution: '720P',
      ratio: '1:1',
      duration: 6,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ duration: 6, ratio: '1:1', video_url: expect.any(String), last_frame_url: expect.any(String) });
    const [submit, ...more] = await submitsFor(prompt);
    expect(more).toHaveLength(0);
    expect(submit!.body).toEqual({
      model: 'doubao-seedance-2-0-260128',
      content: [
        { type: 'text', text: prompt },
        { type: 'image_url', image_url: { url: 'https://x.test/r1.png' }, role: 'reference_image' },
        { type: 'image_url', image_url: { url: 'https://x.test/r2.png' }, role: 'reference_image' },
        { type: 'video_url', video_url: { url: 'https://x.test/v.mp4' }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: 'https://x.test/a.mp3' }, role: 'reference_audio' },
        { type: 'audio_url', audio_url: { url: 'https://x.test/a2.mp3' }, role: 'reference_audio' },
      ],
      ratio: '1:1',
      duration: 6,
      resolution: '720p',
      generate_audio: true,
      watermark: true,
      return_last_frame: true,
      tools: [{ type: 'web_search' }],
      seed: expect.any(Number),
      execution_expires_after: EXPIRES_AFTER,
    });
  });

  test('2.0 without sound asked: generate_audio false is sent, so the job is not made (and billed) with audio', async () => {
    const prompt = unique('a silent film');
    const r = await alice.post('/v1/async/videos/generations', { model: 'vendor-video-2-0-260128', prompt, duration: 4 });
    expect((await alice.waitForTask(r.body.task_id)).status).toBe('success');
    const [submit] = await submitsFor(prompt);
    expect(submit!.body.generate_audio).toBe(false);
    const [job] = await jobsFor(prompt);
    expect(job!.meta.generateAudio).toBe(false);
  });

  test('draft on 1.5 pro becomes draft: true; 2.0 fast refuses draft and 1080p with a 400 naming the field', async () => {
    const prompt = unique('preview');
    const r = await alice.post('/v1/videos/generations', {
      model: 'vendor-video-1-5-pro-251215',
      prompt,
      service_tier: 'draft',
      duration: 4,
    });
    expect(r.status).toBe(200);
    expect((await submitsFor(prompt))[0]!.body).toMatchObject({ draft: true, generate_audio: false });
    for (const [extra, param] of [
      [{ service_tier: 'draft' }, 'service_tier'],
      [{ resolution: '1080p' }, 'resolution'],
    ] as const) {
      const refused = await alice.post('/v1/async/videos/generations', {
        model: 'vendor-video-2-0-fast-260128',
        prompt: unique('fast'),
        duration: 5,
        ...extra,
      });
      expect({ status: refused.status, param: refused.body.error?.param }).toEqual({ status: 400, param });
    }
  });

  test('reference audio alone is a 400 naming it, and never reaches V', async () => {
    const prompt = unique('only a song');
    const r = await alice.post('/v1/async/videos/generations', {
      model: 'vendor-video-2-0-260128',
      prompt,
      duration: 5,
      audio_url: 'https://x.test/a.mp3',
    });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param: 'audio_url' });
    expect(await submitsFor(prompt)).toEqual([]);
  });

  test('expired upstream is a final failure with a clear reason, at once', async () => {
    const prompt = unique('too slow [sim:expires=300] [sim:duration=60000]');
    const started = Date.now();
    const r = await alice.post('/v1/async/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 });
    const done = await alice.waitForTask(r.body.task_id, 30_000);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'expired', message: expect.stringMatching(/deadline passed/) } });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  test('a usage quota 429 (QuotaExceeded) is retried, not taken for money: the task succeeds on one job', async () => {
    const prompt = unique('over quota for a while [sim:submit=429:QuotaExceeded x2]');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 });
    expect(r.status).toBe(200);
    expect((await submitsFor(prompt)).map((q) => [q.status, q.response?.error?.code ?? 'created'])).toEqual([
      [429, 'QuotaExceeded'],
      [429, 'QuotaExceeded'],
      [200, 'created'],
    ]);
    expect(await jobsFor(prompt)).toHaveLength(1);
  });

  test('a rate-limit 429 storm at submit: the task survives with exactly one upstream job', async () => {
    const prompt = unique('busy platform [sim:submit=429x2]');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 });
    expect(r.status).toBe(200);
    expect((await submitsFor(prompt)).map((q) => q.status)).toEqual([429, 429, 200]);
    expect(await jobsFor(prompt)).toHaveLength(1);
  });

  test('5xx while polling: the task keeps polling and succeeds', async () => {
    const r = await alice.post('/v1/videos/generations', {
      model: 'vendor-video-1-0-pro-250528',
      prompt: unique('flaky reads [sim:poll=500x3]'),
      duration: 5,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ url: expect.any(String) }]);
  });
});

describe('lost answers on platform V, system level', () => {
  test('a create whose answer is dropped is reconciled through the task list: one job, a successful task', async () => {
    const prompt = unique('a dropped fox [sim:submit=drop]');
    const r = await alice.post('/v1/async/videos/generations', { model: 'vendor-video-1-5-pro-251215', prompt, duration: 5 });
    const done = await alice.waitForTask(r.body.task_id, 90_000);
    expect(done.status).toBe('success');

    // V created (and would bill) exactly one job for this task, and the task followed that job.
    const jobs = await jobsFor(prompt);
    expect(jobs).toHaveLength(1);
    expect(await pollsOf(jobs[0]!.id)).toBeGreaterThan(0);
    // The create was carried out and its answer lost; it was not sent again.
    const submits = await submitsFor(prompt);
    expect(submits.map((s) => s.status)).toEqual([0]);
    // The job was found by the list of its model, by the seed the create carried.
    const lookups = (await sim.requests('V', 'list')).filter(
      (l) => l.at! >= submits[0]!.at! && (l.query ?? '').includes('filter.model=doubao-seedance-1-5-pro-251215'),
    );
    expect(lookups.length).toBeGreaterThan(0);
    expect(jobs[0]!.meta.seed).toBe(submits[0]!.body.seed);
  });

  test('two tasks of the same model and prompt, both answers dropped: each adopts its own job', async () => {
    const prompt = unique('twins [sim:submit=dropx2]');
    const [a, b] = await Promise.all([
      alice.post('/v1/async/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 }),
      alice.post('/v1/async/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 }),
    ]);
    const [da, db] = await Promise.all([alice.waitForTask(a.body.task_id, 90_000), alice.waitForTask(b.body.task_id, 90_000)]);
    expect([da.status, db.status]).toEqual(['success', 'success']);
    // Two jobs, and both were followed: had one task adopted the other's job, one job would never be polled.
    const jobs = await jobsFor(prompt);
    expect(jobs).toHaveLength(2);
    expect(jobs[0]!.meta.seed).not.toBe(jobs[1]!.meta.seed);
    for (const job of jobs) expect(await pollsOf(job.id)).toBeGreaterThan(0);
  });
});
