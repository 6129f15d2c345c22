/**
 * Platform V over real HTTP beyond the walking skeleton: every content mode on the wire, the raw extras, a 429
 * storm at submit and 5xx at poll that the task survives with exactly one upstream job.
 */
import { sharedStack } from '../support/shared-stack';

const { api, sim } = sharedStack();
const alice = api('alice');
const unique = (text: string) => `${text} #${Math.random().toString(36).slice(2, 10)}`;

async function submitsFor(prompt: string) {
  return (await sim.requests('V', 'submit')).filter((r) => r.body?.content?.[0]?.text === prompt);
}

describe('platform V, end to end', () => {
  test('reference images, video and audio on the 2.0 model, with sound and return_last_frame', async () => {
    const prompt = unique('remix the scene');
    const r = await alice.post('/v1/videos/generations', {
      model: 'vendor-video-2-0-260128',
      prompt,
      images: [{ url: 'https://x.test/r1.png', role: 'reference_image' }, { url: 'https://x.test/r2.png' }],
      videos: [{ url: 'https://x.test/v.mp4' }],
      audio_url: 'https://x.test/a.mp3',
      generate_audio: true,
      return_last_frame: true,
      watermark: true,
      resolution: '720P',
      ratio: '1:1',
      duration: 6,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ duration: 6, ratio: '1:1', video_url: r.body.data[0].url, last_frame_url: expect.stringMatching(/\.png$/) });
    const [submit] = await submitsFor(prompt);
    expect(submit!.body).toEqual({
      model: 'doubao-seedance-2-0-260128',
      content: [
        { type: 'text', text: prompt },
        { type: 'image_url', image_url: { url: 'https://x.test/r1.png' }, role: 'reference_image' },
        { type: 'image_url', image_url: { url: 'https://x.test/r2.png' }, role: 'reference_image' },
        { type: 'video_url', video_url: { url: 'https://x.test/v.mp4' }, role: 'reference_video' },
        { type: 'audio_url', audio_url: { url: 'https://x.test/a.mp3' }, role: 'reference_audio' },
      ],
      ratio: '1:1',
      duration: 6,
      resolution: '720p',
      generate_audio: true,
      watermark: true,
      return_last_frame: true,
    });
  });

  test('image-to-video with the image as reference (image_role) on the lite i2v model', async () => {
    const prompt = unique('animate');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-1-0-lite-i2v-250428', prompt, image_url: 'https://x.test/a.png', image_role: 'reference_image', duration: 4 });
    expect(r.status).toBe(200);
    const [submit] = await submitsFor(prompt);
    expect(submit!.body.content[1]).toEqual({ type: 'image_url', image_url: { url: 'https://x.test/a.png' }, role: 'reference_image' });
  });

  test('draft mode becomes draft: true upstream', async () => {
    const prompt = unique('preview');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-2-0-fast-260128', prompt, service_tier: 'draft', duration: 4 });
    expect(r.status).toBe(200);
    expect((await submitsFor(prompt))[0]!.body.draft).toBe(true);
  });

  test('a 429 storm at submit: the task survives with exactly one upstream job', async () => {
    const prompt = unique('busy platform [sim:submit=429x3]');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 });
    expect(r.status).toBe(200);
    // Four submits reached the platform: three refused with 429, one created the job.
    expect((await submitsFor(prompt)).map((q) => q.status)).toEqual([429, 429, 429, 200]);
    const record = await alice.get(`/v1/generations/${r.body.task_id}`);
    expect(record.body.status).toBe('success');
  });

  test('5xx while polling: the task keeps polling and succeeds', async () => {
    const prompt = unique('flaky reads [sim:poll=500x3]');
    const r = await alice.post('/v1/videos/generations', { model: 'vendor-video-1-0-pro-250528', prompt, duration: 5 });
    expect(r.status).toBe(200);
    expect(r.body.data[0].url).toMatch(/\.mp4$/);
  });
});
