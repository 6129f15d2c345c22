/**
 * The AWS SDK warns, on every process that makes an S3 client under Node < 22, that its releases after January 2027
 * will need Node 22. That is about releases the gateway does not run: the SDK is pinned by the lock file, and the
 * Node versions the gateway supports are package.json's `engines`, to which test/unit/dependencies.test.ts holds
 * every locked package's own `engines`, so an upgrade to such a release fails that test before it reaches anyone.
 * To an operator the warning is noise on every process of a cluster, so it is turned off, unless the operator set
 * the SDK's switch themselves, in the environment the SDK reads: the process's, handed in by the one module of each
 * process that reads the environment (api/api-config.ts, worker/worker-config.ts; scripts/minio.ts for its own
 * client).
 */
export function quietForwardLookingNodeWarning(env: Record<string, string | undefined>): void {
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}
