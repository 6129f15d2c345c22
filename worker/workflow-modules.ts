/**
 * What goes into the workflow sandbox: the workflows and their interceptors. Shared by the worker (bundling at
 * start) and scripts/bundle-workflows.ts (prebuilding the bundle for production), so the two never differ:
 * a prebuilt bundle ignores the Worker's own interceptor option.
 */
export const workflowsPath = require.resolve('../workflows');

export const workflowInterceptorModules = [require.resolve('../workflows/metrics-interceptor')];
