/** The workflow bundle's entry point: every workflow type the worker registers. */
export { generationWorkflow } from './generation';
export { resultsCleanupWorkflow } from './cleanup';
export { platformEventsWorkflow } from './platform-events';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { reconciliationWorkflow } from './reconciliation';
