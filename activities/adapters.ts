/** Builds one adapter per enabled platform from the configuration. */
import type { Config } from '../core/config';
import type { Platform } from '../core/platforms';
import type { OperatorAlert, PlatformAdapter } from './adapter';
import type { HttpClient } from './http';
import { createPlatformB } from './platform-b';
import { createPlatformT } from './platform-t';
import { createPlatformV } from './platform-v';

export type Adapters = Partial<Record<Platform, PlatformAdapter>>;

export function createAdapters(config: Config, http: HttpClient, alert: OperatorAlert): Adapters {
  const adapters: Adapters = {};
  if (config.platforms.V) adapters.V = createPlatformV(config.platforms.V, http, alert);
  if (config.platforms.B) adapters.B = createPlatformB(config.platforms.B, http, alert);
  if (config.platforms.T) adapters.T = createPlatformT(config.platforms.T, http, alert);
  return adapters;
}
