/**
 * MinIO, the S3-compatible server the result store's S3 path is tested and benchmarked against: a real S3 API
 * (SigV4, multipart uploads, ranges, presigned URLs), not a mock. Built from its Go module with `go install` into
 * the gitignored .tools/ (the project publishes no binary any more, and the Go module proxy is reachable from
 * every machine that runs the tests), pinned, idempotent and safe to run concurrently (built into a temporary
 * directory, then renamed into place). A cold build (module download and compile) takes about 2–3 minutes on 2
 * cores; once built it is found at once.
 *
 *   npm run s3:install          # builds it if missing, prints its path (CI runs this, .ci/run)
 *
 * startMinio() runs one for a test or benchmark: bound to 127.0.0.1 on a free port, its data in a temporary
 * directory, random root credentials, no web console, no update checks; stop() ends it and deletes the data.
 * `npm run cluster` gives it a data directory, a port and credentials of its own instead, and keeps the data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { quietForwardLookingNodeWarning } from '../results/aws-sdk-node-warning';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { installGoTools, TOOLS, works, type Log } from './tools';

export const MINIO_MODULE = 'github.com/minio/minio';
/**
 * The tip of github.com/minio/minio (2026-02-12), as the Go module proxy serves it. The project tags releases
 * as RELEASE.<date>, which are not semantic versions, so Go knows them only as pseudo-versions; the checksum
 * database pins this one's content.
 */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const DIR_NAME = `minio-${MINIO_VERSION.split('-')[1]}`;
const DIR = join(TOOLS, DIR_NAME);
export const MINIO_BIN = join(DIR, 'minio');

export const INSTALL_HINT = `MinIO (the S3-compatible test server) is not installed: run \`npm run s3:install\` (needs Go ≥ 1.24; builds ${MINIO_MODULE}@${MINIO_VERSION} into .tools/, 2–3 minutes)`;

/** The pinned MinIO's path, building it when missing (unless install is false); undefined when it cannot be had here. */
export function findMinio(opts: { install?: boolean; log?: Log } = {}): string | undefined {
  const log = opts.log ?? ((m) => console.error(m));
  if (existsSync(MINIO_BIN) && works(MINIO_BIN)) return MINIO_BIN;
  if (opts.install === false) return undefined;
  log(`Building MinIO ${MINIO_VERSION} with Go into ${DIR} (2–3 minutes on a cold module cache)`);
  installGoTools({ dir: DIR_NAME, packages: [`${MINIO_MODULE}@${MINIO_VERSION}`], what: `MinIO ${MINIO_VERSION}`, log });
  return existsSync(MINIO_BIN) && works(MINIO_BIN) ? MINIO_BIN : undefined;
}

export interface MinioServer {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The variables a gateway process needs to use `bucket` on this server. */
  env(bucket: string): Record<string, string>;
  createBucket(name: string): Promise<void>;
  client(): S3Client;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface MinioOptions {
  binary?: string;
  log?: Log;
  /** Keep the data here (kept by stop()); default: a temporary directory, deleted by stop(). */
  dataDir?: string;
  port?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** A process group of its own, so a terminal's Ctrl-C reaches only the launcher, which stops the parts in order. */
  ownProcessGroup?: boolean;
}

/** Starts the pinned MinIO (which must be installed: see INSTALL_HINT) and waits until it answers. */
/** Waits until MinIO answers its health check (30 s at most); stops it and throws, with its output, if it does not. */
async function untilLive(child: ChildProcess, endpoint: string, stop: () => Promise<void>, outputSoFar: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`MinIO exited during start-up:\n${outputSoFar()}`);
    }
    const ok = await fetch(`${endpoint}/minio/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`MinIO did not answer within 30 s:\n${outputSoFar()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The MinIO server process on loopback `port`, its data and home under `root`, the root user's credentials given. */
function spawnMinio(
  binary: string,
  {
    root,
    port,
    accessKeyId,
    secretAccessKey,
    region,
  }: { root: string; port: number; accessKeyId: string; secretAccessKey: string; region: string },
  ownProcessGroup: boolean | undefined,
): ChildProcess {
  return spawn(binary, ['server', '--address', `127.0.0.1:${port}`, '--certs-dir', join(root, 'certs'), '--quiet', join(root, 'data')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: root,
      MINIO_ROOT_USER: accessKeyId,
      MINIO_ROOT_PASSWORD: secretAccessKey,
      // No web console (it would listen on a random port of every interface), no update checks, no telemetry.
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
      MINIO_REGION: region,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownProcessGroup,
  });
}

export async function startMinio(opts: MinioOptions = {}): Promise<MinioServer> {
  const binary = opts.binary ?? findMinio({ install: false });
  if (!binary) throw new Error(INSTALL_HINT);
  const root = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'mediagate-minio-'));
  mkdirSync(root, { recursive: true });
  const port = opts.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = opts.credentials?.accessKeyId ?? `mediagate-${randomBytes(4).toString('hex')}`;
  const secretAccessKey = opts.credentials?.secretAccessKey ?? randomBytes(24).toString('base64url');
  const region = 'us-east-1';
  const child = spawnMinio(binary, { root, port, accessKeyId, secretAccessKey, region }, opts.ownProcessGroup);
  let output = '';
  for (const s of [child.stdout!, child.stderr!]) s.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    if (!opts.dataDir) rmSync(root, { recursive: true, force: true });
  };

  await untilLive(child, endpoint, stop, () => output);

  const client = () => {
    quietForwardLookingNodeWarning(process.env);
    return new S3Client({ region, endpoint, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  };
  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    env: (bucket) => ({
      RESULTS_S3_BUCKET: bucket,
      RESULTS_S3_ENDPOINT: endpoint,
      RESULTS_S3_REGION: region,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
    }),
    async createBucket(name) {
      const c = client();
      try {
        await c.send(new CreateBucketCommand({ Bucket: name })).catch((err: Error) => {
          // Made by an earlier start on the same data: ours already.
          if (err.name !== 'BucketAlreadyOwnedByYou') throw err;
        });
      } finally {
        c.destroy();
      }
    },
    client,
    process: child,
    stop,
  };
}

if (require.main === module) {
  const path = findMinio();
  if (!path) {
    console.error(INSTALL_HINT);
    process.exit(1);
  }
  console.log(path);
}
