/**
 * The one logger factory: pino JSON to stdout, with secrets and prompts redacted wherever they appear.
 * (Workflows never import this: they log through the replay-aware `log` of @temporalio/workflow.)
 */
import pino, { type Logger } from 'pino';

/** Paths never logged: credentials, and prompts (user content, possibly personal). */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'headers.authorization',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'secretKey',
  '*.secretKey',
  'prompt',
  '*.prompt',
  'negative_prompt',
  '*.negative_prompt',
  'request.prompt',
  'input.request.prompt',
];

/** `level` is the process's LOG_LEVEL, parsed with the rest of its configuration (core/config.ts commonSchema). */
export function createLogger(service: string, level: string = 'info'): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger };
