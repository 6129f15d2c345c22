/** The sha256 of some bytes, hex: how results are checked byte-identical (the result store records the same). */
import { createHash } from 'node:crypto';

export function sha(bytes: Buffer | ArrayBuffer | string): string {
  return createHash('sha256')
    .update(typeof bytes === 'string' || Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes))
    .digest('hex');
}
