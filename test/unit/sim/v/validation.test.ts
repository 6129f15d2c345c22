/**
 * sim/v/validation.ts (with models.ts), over real HTTP: creates checked strictly per model (Seedance 1.0 / 1.5 /
 * 2.0), as Ark checks them.
 */
import { create, text, img, vid, aud, M, stats, useVSimulator } from '../../../support/sim/v';

useVSimulator();

describe('create validation', () => {
  const cases: [string, Record<string, unknown>, number, string | undefined][] = [
    ['unknown parameter', { model: M.pro, content: [text()], fps: 24 }, 400, 'InvalidParameter'],
    ['no model', { content: [text()] }, 400, 'MissingParameter'],
    ['unknown model', { model: 'doubao-seedance-9-0', content: [text()] }, 404, 'InvalidEndpointOrModel.NotFound'],
    [
      'BytePlus model id on Volcengine',
      { model: 'dreamina-seedance-2-0-260128', content: [text()] },
      404,
      'InvalidEndpointOrModel.NotFound',
    ],
    ['no content', { model: M.pro }, 400, 'MissingParameter'],
    ['two texts', { model: M.pro, content: [text(), text()] }, 400, 'InvalidParameter'],
    ['unknown item field', { model: M.pro, content: [{ type: 'text', text: 'x', role: 'prompt' }] }, 400, 'InvalidParameter'],
    ['ratio 5:4', { model: M.pro, content: [text()], ratio: '5:4' }, 400, 'InvalidParameter'],
    ['ratio 21:9', { model: M.pro, content: [text()], ratio: '21:9' }, 200, undefined],
    ['ratio adaptive, 1.0 text only', { model: M.pro, content: [text()], ratio: 'adaptive' }, 400, 'InvalidParameter'],
    ['ratio adaptive, 1.5 text only', { model: M.v15, content: [text()], ratio: 'adaptive' }, 200, undefined],
    ['resolution 1080P (upper case)', { model: M.pro, content: [text()], resolution: '1080P' }, 400, 'InvalidParameter'],
    ['1.0 pro 2 s', { model: M.pro, content: [text()], duration: 2 }, 200, undefined],
    ['1.0 pro 13 s', { model: M.pro, content: [text()], duration: 13 }, 400, 'InvalidParameter'],
    ['1.0 pro first+last', { model: M.pro, content: [text(), img('first_frame'), img('last_frame', 2)] }, 200, undefined],
    ['1.0 pro reference image', { model: M.pro, content: [text(), img('reference_image')] }, 400, 'InvalidParameter'],
    ['pro-fast first frame', { model: M.proFast, content: [text(), img()] }, 200, undefined],
    ['pro-fast first+last', { model: M.proFast, content: [text(), img('first_frame'), img('last_frame', 2)] }, 400, 'InvalidParameter'],
    ['last frame alone', { model: M.pro, content: [text(), img('last_frame')] }, 400, 'InvalidParameter'],
    ['lite t2v with an image', { model: M.liteT2v, content: [text(), img()] }, 400, 'InvalidParameter'],
    ['lite i2v text only', { model: M.liteI2v, content: [text()] }, 400, 'InvalidParameter'],
    [
      'lite i2v 4 reference images',
      { model: M.liteI2v, content: [text(), ...[1, 2, 3, 4].map((n) => img('reference_image', n))] },
      200,
      undefined,
    ],
    [
      'lite i2v 5 reference images',
      { model: M.liteI2v, content: [text(), ...[1, 2, 3, 4, 5].map((n) => img('reference_image', n))] },
      400,
      'InvalidParameter',
    ],
    ['1.5 pro 3 s', { model: M.v15, content: [text()], duration: 3 }, 400, 'InvalidParameter'],
    ['1.5 pro 12 s', { model: M.v15, content: [text()], duration: 12 }, 200, undefined],
    ['1.5 pro 13 s', { model: M.v15, content: [text()], duration: 13 }, 400, 'InvalidParameter'],
    ['1.5 pro auto (-1)', { model: M.v15, content: [text()], duration: -1 }, 200, undefined],
    ['1.0 pro auto (-1)', { model: M.pro, content: [text()], duration: -1 }, 400, 'InvalidParameter'],
    ['1.5 pro draft at 480p', { model: M.v15, content: [text()], draft: true, resolution: '480p' }, 200, undefined],
    ['1.5 pro draft at 720p', { model: M.v15, content: [text()], draft: true, resolution: '720p' }, 400, 'InvalidParameter'],
    ['2.0 draft', { model: M.v20, content: [text()], draft: true }, 400, 'InvalidParameter'],
    ['2.0-fast draft', { model: M.v20fast, content: [text()], draft: true }, 400, 'InvalidParameter'],
    ['2.0-fast 1080p', { model: M.v20fast, content: [text()], resolution: '1080p' }, 400, 'InvalidParameter'],
    ['2.0 1080p 15 s', { model: M.v20, content: [text()], resolution: '1080p', duration: 15 }, 200, undefined],
    ['2.0 16 s', { model: M.v20, content: [text()], duration: 16 }, 400, 'InvalidParameter'],
    [
      '2.0 9 images, 3 videos, 3 audios',
      {
        model: M.v20,
        content: [
          text(),
          ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => img('reference_image', n)),
          vid(1),
          vid(2),
          vid(3),
          aud(1),
          aud(2),
          aud(3),
        ],
      },
      200,
      undefined,
    ],
    [
      '2.0 10 reference images',
      { model: M.v20, content: [text(), ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => img('reference_image', n))] },
      400,
      'InvalidParameter',
    ],
    ['2.0 4 reference videos', { model: M.v20, content: [text(), vid(1), vid(2), vid(3), vid(4)] }, 400, 'InvalidParameter'],
    [
      '2.0 4 reference audios',
      { model: M.v20, content: [text(), img('reference_image'), aud(1), aud(2), aud(3), aud(4)] },
      400,
      'InvalidParameter',
    ],
    ['2.0 audio alone', { model: M.v20, content: [text(), aud()] }, 400, 'InvalidParameter'],
    ['2.0 audio with a video', { model: M.v20, content: [text(), vid(), aud()] }, 200, undefined],
    ['2.0 first frame + reference video', { model: M.v20, content: [text(), img('first_frame'), vid()] }, 400, 'InvalidParameter'],
    ['1.5 pro reference video', { model: M.v15, content: [text(), vid()] }, 400, 'InvalidParameter'],
    ['web search on 2.0', { model: M.v20, content: [text()], tools: [{ type: 'web_search' }] }, 200, undefined],
    ['web search on 1.5 pro', { model: M.v15, content: [text()], tools: [{ type: 'web_search' }] }, 400, 'InvalidParameter'],
    ['unknown tool', { model: M.v20, content: [text()], tools: [{ type: 'code_interpreter' }] }, 400, 'InvalidParameter'],
    ['execution_expires_after 100', { model: M.pro, content: [text()], execution_expires_after: 100 }, 400, 'InvalidParameter'],
    ['execution_expires_after 3600', { model: M.pro, content: [text()], execution_expires_after: 3600 }, 200, undefined],
    ['service_tier flex', { model: M.pro, content: [text()], service_tier: 'flex' }, 200, undefined],
    ['service_tier flex on 2.0', { model: M.v20, content: [text()], service_tier: 'flex' }, 400, 'InvalidParameter'],
    ['service_tier flex with draft', { model: M.v15, content: [text()], service_tier: 'flex', draft: true }, 400, 'InvalidParameter'],
    ['service_tier priority', { model: M.pro, content: [text()], service_tier: 'priority' }, 400, 'InvalidParameter'],
    ['seed too large', { model: M.pro, content: [text()], seed: 2 ** 32 }, 400, 'InvalidParameter'],
    ['generate_audio as a string', { model: M.v20, content: [text()], generate_audio: 'true' }, 400, 'InvalidParameter'],
    ['callback_url not a URL', { model: M.pro, content: [text()], callback_url: 'ftp://x' }, 400, 'InvalidParameter'],
    ['duration and frames', { model: M.pro, content: [text()], duration: 5, frames: 121 }, 400, 'InvalidParameter'],
    ['frames 121 on 1.0 pro', { model: M.pro, content: [text()], frames: 121 }, 200, undefined],
    ['frames 120', { model: M.pro, content: [text()], frames: 120 }, 400, 'InvalidParameter'],
    [
      'camera_fixed with reference images',
      { model: M.liteI2v, content: [text(), img('reference_image')], camera_fixed: true },
      400,
      'InvalidParameter',
    ],
  ];

  test.each(cases)('%s', async (_name, body, status, code) => {
    const r = await create(body);
    expect(r.status).toBe(status);
    if (code) {
      expect(r.json.error.code).toBe(code);
      expect(r.json.error.type).toBe(status === 404 ? 'NotFound' : 'BadRequest');
      expect(typeof r.json.error.message).toBe('string');
      expect(typeof r.json.error.param).toBe('string');
    } else {
      expect(r.json.id).toMatch(/^cgt-/);
    }
  });

  test('refusals create nothing', async () => {
    await create({ model: M.v20, content: [text(), aud()] });
    const s = await stats();
    expect(s).toMatchObject({ submitRequests: 1, jobsCreated: 0, rejected: 1 });
  });
});
