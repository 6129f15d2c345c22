/**
 * Routes the Temporal SDK's own logs (and the Rust core's) through our pino logger, reshaped for a person to read:
 * the SDK puts the activity's base64 task token on every activity line (hundreds of characters that say nothing
 * the workflow id and activity id do not), so it is dropped here, the one place those lines pass through.
 */
import type { Logger as TemporalLogger, LogLevel, LogMetadata } from '@temporalio/worker';
import type { Logger } from '../core/logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** Metadata the SDK attaches that never goes into our logs (@temporalio/worker activityLogAttributes). */
const DROPPED_METADATA = ['taskToken'];

function readable(meta: LogMetadata | undefined): LogMetadata {
  if (!meta) return {};
  if (!DROPPED_METADATA.some((key) => key in meta)) return meta;
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !DROPPED_METADATA.includes(key)));
}

export function temporalLogger(logger: Logger): TemporalLogger {
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => logger[LEVELS[level]](readable(meta), message);
  return {
    log: (level, message, meta) => at(level)(message, meta),
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
}
