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

/**
 * An error as JSON can show it: its fields are not enumerable, so as it is the SDK's "Workflow failed" line would
 * read `"error":{}`. Its name, message, failure type (an ApplicationFailure's) and the chain of causes' messages.
 */
function errorJson(err: Error, depth = 0): Record<string, unknown> {
  const type = (err as { type?: unknown }).type;
  const cause = (err as { cause?: unknown }).cause;
  return {
    name: err.name,
    message: err.message,
    ...(typeof type === 'string' ? { type } : {}),
    ...(cause instanceof Error && depth < 5 ? { cause: errorJson(cause, depth + 1) } : {}),
  };
}

function readable(meta: LogMetadata | undefined): LogMetadata {
  if (!meta) return {};
  const entries = Object.entries(meta);
  if (!entries.some(([key, value]) => DROPPED_METADATA.includes(key) || value instanceof Error)) return meta;
  return Object.fromEntries(
    entries
      .filter(([key]) => !DROPPED_METADATA.includes(key))
      .map(([key, value]) => [key, value instanceof Error ? errorJson(value) : value]),
  );
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
