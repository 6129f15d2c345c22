/** Connection options for Temporal from configuration: a local dev server, a cluster, or Temporal Cloud. */
import type { z } from 'zod';
import type { temporalSchema } from './config';

export interface TemporalConnectionOptions {
  address: string;
  tls?: boolean;
  apiKey?: string;
}

export function temporalConnectionOptions(config: z.infer<typeof temporalSchema>): TemporalConnectionOptions {
  const opts: TemporalConnectionOptions = { address: config.TEMPORAL_ADDRESS };
  if (config.TEMPORAL_API_KEY) {
    opts.apiKey = config.TEMPORAL_API_KEY;
    opts.tls = true;
  } else if (config.TEMPORAL_TLS) {
    opts.tls = true;
  }
  return opts;
}
