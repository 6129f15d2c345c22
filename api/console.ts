/**
 * Serves the operator's console (console/, built by Vite into dist/console by `npm install`, `npm start`, `npm run
 * build` and the image) at /console on the API's own port, on every replica. The page is static: it reaches the
 * gateway only through the admin API, with its session cookie. Every answer carries a content security policy that
 * lets nothing run but the console's own script files (no inline script, no other origin), and no framing.
 *
 * Hashed assets (/console/assets/…) are cached for a year; the page itself never, so a new build is picked up at the
 * next load. Any other path under /console is the page (the console routes in the browser). Precompressed copies
 * (.br, .gz, written by the build) are sent to browsers that take them.
 */
import Router from '@koa/router';
import { send } from '@koa/send';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ApiError } from './api-error';
import type { AppContext, AppState } from './context';

export const CONSOLE_PATH = '/console';

/** What the console may load and do: its own files and the admin API, nothing inline, never inside a frame. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the built console is: dist/console beside the sources (tsx runs api/ from the repository), or console/ beside
 * the compiled api/ (dist/api/ in the image).
 */
export function defaultConsoleDir(): string {
  const root = resolve(__dirname, '..');
  return basename(root) === 'dist' ? join(root, 'console') : join(root, 'dist', 'console');
}

function secureHeaders(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

export function consoleRoutes(dir: string | undefined): Router<AppState> {
  const router = new Router<AppState>();
  const page = async (ctx: AppContext, file: string) => {
    if (!dir || !existsSync(join(dir, 'index.html'))) {
      throw new ApiError(503, 'service_unavailable_error', 'The console is not built: run npm install (or npm run build)', {
        code: 'console_not_built',
      });
    }
    secureHeaders(ctx);
    const asset = file.startsWith('assets/') && existsSync(join(dir, file));
    await send(ctx, asset ? file : 'index.html', {
      root: dir,
      brotli: true,
      gzip: true,
      ...(asset ? { maxage: 365 * 24 * 60 * 60_000, immutable: true } : {}),
      setHeaders: (res) => {
        if (!asset) res.setHeader('Cache-Control', 'no-cache');
      },
    });
  };
  router.get(CONSOLE_PATH, (ctx: AppContext) => page(ctx, 'index.html'));
  router.get(`${CONSOLE_PATH}/{*path}`, (ctx: AppContext) => page(ctx, String(ctx.params?.path ?? '')));
  return router;
}
