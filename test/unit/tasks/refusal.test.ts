/**
 * A refusal in a door's terms: the start path names a field as the door that translated it does (the Videos API's
 * `seconds` for `duration`, `size` for `ratio` and `resolution`); a door that speaks the general form gets it as is.
 */
import { invalidTask, TaskRefused } from '../../../tasks/refusal';

const VIDEOS = { duration: 'seconds', ratio: 'size', resolution: 'size', image_url: 'input_reference.image_url' };

describe('TaskRefused.inDoorTerms', () => {
  test('a field the door calls otherwise, alone: the message starts with the door’s name', () => {
    const r = invalidTask('duration 7 is not supported by K; use 5 or 10 seconds', 'duration').inDoorTerms(VIDEOS);
    expect([r.details.param, r.message]).toEqual(['seconds', 'seconds 7 is not supported by K; use 5 or 10 seconds']);
    const required = new TaskRefused('invalid_request', 'duration is required for K: 5 or 10 seconds', { param: 'duration', code: 'x' });
    expect(required.inDoorTerms(VIDEOS).message).toBe('seconds is required for K: 5 or 10 seconds');
  });

  test('a door field several general fields came from is put before the message, which says which part', () => {
    const r = invalidTask("ratio '1:1' is not supported by G; use one of 16:9", 'ratio').inDoorTerms(VIDEOS);
    expect([r.details.param, r.message, r.details.code]).toEqual([
      'size',
      "size: ratio '1:1' is not supported by G; use one of 16:9",
      'invalid_value',
    ]);
  });

  test('a nested field keeps its path under the door’s name; a message that does not start with the field is prefixed', () => {
    const r = invalidTask('G takes no input image here', 'image_url').inDoorTerms(VIDEOS);
    expect([r.details.param, r.message]).toEqual(['input_reference.image_url', 'input_reference.image_url: G takes no input image here']);
    expect(invalidTask('images.0.url: bad', 'images.0.url').inDoorTerms({ images: 'refs' }).details.param).toBe('refs.0.url');
  });

  test('the identity: no name to change, a field the door does not rename, or a refusal that is not of the request', () => {
    const plain = invalidTask('prompt must not be blank', 'prompt');
    expect(plain.inDoorTerms({})).toBe(plain);
    expect(plain.inDoorTerms(VIDEOS)).toBe(plain);
    // `toString` is no field the door named, although every object has it.
    expect(invalidTask('x', 'toString').inDoorTerms(VIDEOS).details.param).toBe('toString');
    const budget = new TaskRefused('payment_required', 'duration costs too much', { param: 'duration', code: 'budget_exceeded' });
    expect(budget.inDoorTerms(VIDEOS)).toBe(budget);
  });
});
