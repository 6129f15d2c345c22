/**
 * The platforms' official SDK signers, used only as independent reference implementations: the gateway's signers
 * (platforms/<x>/signing.ts) and the simulator's (sim/<x>) are each checked against them. Tests only.
 */

// tencentcloud-sdk-nodejs-common's TC3-HMAC-SHA256 signer (platform T).
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const SdkSign = require('tencentcloud-sdk-nodejs-common/tencentcloud/common/sign').default as {
  sign3(opts: Record<string, unknown>): string;
};

// npm @baiducloud/sdk/src/auth.js: the bce-auth-v1 signer (platform B).
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const SdkAuth = require('@baiducloud/sdk/src/auth.js') as new (
  ak: string,
  sk: string,
) => {
  generateAuthorization(
    method: string,
    resource: string,
    params: Record<string, string>,
    headers: Record<string, string>,
    timestampSeconds?: number,
    expirationSeconds?: number,
    headersToSign?: string[],
  ): string;
};
