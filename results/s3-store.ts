/**
 * The production result store: any S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2…) through the official
 * AWS SDK v3. Credentials come the usual AWS way (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, a web
 * identity, an instance or task role): the SDK's default provider chain.
 *
 * Writes stream through `@aws-sdk/lib-storage`'s Upload: a single PUT for a small object, a multipart upload
 * otherwise, holding at most `queueSize × partSize` (2 × 8 MiB) in memory whatever the object's size. S3 makes
 * an object visible only when its PUT or CompleteMultipartUpload succeeds, atomically, so no temporary key and
 * server-side copy is needed for "never a partial object": an aborted or failed upload leaves nothing readable
 * (lib-storage aborts the multipart upload; one cut short by a killed worker stays invisible and is aborted by
 * the retention cleanup, or a bucket lifecycle rule).
 */
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  assertValidKey,
  contentTypeOfKey,
  measuringStream,
  ResultStoreError,
  type ByteRange,
  type PutOptions,
  type PutResult,
  type ResultStore,
  type StoredObjectInfo,
} from './result-store';

export interface S3StoreOptions {
  bucket: string;
  /** A non-AWS endpoint (MinIO, Ceph…): path-style addressing is used with it. */
  endpoint?: string;
  region: string;
  /** Prepended to every key, so the gateway may share a bucket: retention deletes only under it. */
  prefix?: string;
  /** Static credentials (tests); absent: the SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}

export class S3ResultStore implements ResultStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(opts: S3StoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? '';
    const config: S3ClientConfig = {
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // Checksums only where S3 requires them: the SDK's default (CRC32 on every request) is not implemented by
      // every S3-compatible store, and the copy keeps its own sha256 of every object anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client(config);
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    const measure = measuringStream();
    const measured = body.pipe(measure.stream);
    // pipe() does not forward errors: a failing source must fail the upload, not leave it waiting.
    body.once('error', (err) => measured.destroy(err));
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.objectKey(key), Body: measured, ContentType: opts.contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const onAbort = () => void upload.abort().catch(() => undefined);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await upload.done();
      return { key, ...measure.measured() };
    } catch (err) {
      throw new ResultStoreError(`uploading ${key} to bucket ${this.bucket} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return this.info(key, res);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw new ResultStoreError(`HEAD ${key} in bucket ${this.bucket} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  async get(key: string, range?: ByteRange): Promise<{ info: StoredObjectInfo; body: Readable } | undefined> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      // With a range, ContentLength is the range's; the object's size is after the slash of Content-Range.
      const total = range && res.ContentRange ? Number(res.ContentRange.split('/')[1]) : res.ContentLength;
      return { info: this.info(key, { ...res, ContentLength: total }), body: res.Body as Readable };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw new ResultStoreError(`GET ${key} in bucket ${this.bucket} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  private info(
    key: string,
    res: { ContentLength?: number; ContentType?: string; ETag?: string; LastModified?: Date; Metadata?: Record<string, string> },
  ): StoredObjectInfo {
    const sha256 = res.Metadata?.sha256;
    return {
      key,
      bytes: res.ContentLength ?? 0,
      contentType: res.ContentType ?? contentTypeOfKey(key),
      ...(sha256 ? { sha256 } : {}),
      etag: (res.ETag ?? '').replace(/"/g, ''),
      lastModified: res.LastModified ?? new Date(0),
    };
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw new ResultStoreError(`DELETE ${key} in bucket ${this.bucket} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  async deleteOlderThan(cutoff: Date, onProgress?: (deleted: number) => void): Promise<{ deleted: number; bytes: number }> {
    let deleted = 0;
    let bytes = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix || undefined, ContinuationToken: token }),
      );
      const old = (page.Contents ?? []).filter((o) => o.Key && o.LastModified && o.LastModified < cutoff);
      if (old.length > 0) {
        // At most 1,000 keys per DeleteObjects, which is also ListObjectsV2's page size.
        const res = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: old.map((o) => ({ Key: o.Key! })), Quiet: true } }),
        );
        const failed = new Set((res.Errors ?? []).map((e) => e.Key));
        if (failed.size > 0)
          throw new ResultStoreError(
            `${failed.size} objects could not be deleted from bucket ${this.bucket}: ${res.Errors?.[0]?.Message ?? ''}`,
          );
        deleted += old.length;
        bytes += old.reduce((sum, o) => sum + (o.Size ?? 0), 0);
      }
      onProgress?.(deleted);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);

    // Multipart uploads a killed worker left unfinished: invisible, but their parts take space until aborted.
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.bucket,
          Prefix: this.prefix || undefined,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const u of page.Uploads ?? []) {
        if (u.Key && u.UploadId && u.Initiated && u.Initiated < cutoff) {
          await this.client
            .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: u.Key, UploadId: u.UploadId }))
            .catch(() => undefined);
        }
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return { deleted, bytes };
  }

  async presignGet(key: string, opts: { expiresInSeconds: number; filename: string }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: `inline; filename="${opts.filename.replace(/[^A-Za-z0-9_.-]/g, '_')}"`,
    });
    return getSignedUrl(this.client, command, { expiresIn: opts.expiresInSeconds });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
