/** OpenAI's `size` as our ratio and resolution by a fixed table, with no model: a size is its short side at a general ratio. */
import { sizeFields } from '../../../../api/openai-videos/sizes';

describe('sizeFields', () => {
  test.each([
    ['1280x720', { ratio: '16:9', resolution: '720p' }],
    ['720x1280', { ratio: '9:16', resolution: '720p' }],
    ['848x480', { ratio: '16:9', resolution: '480p' }],
    [' 960x720 ', { ratio: '4:3', resolution: '720p' }],
    ['1024x1024', { ratio: '1:1', resolution: '1024p' }],
    ['3840x2160', { ratio: '16:9', resolution: '4k' }],
  ])('%s → %j', (size, fields) => expect(sizeFields(size)).toEqual(fields));

  test.each(['1792x1024', 'big', '1280x', '1280×720', '0x0'])('%s is no size of a general ratio', (size) => {
    expect(sizeFields(size)).toBeUndefined();
  });
});
