/** Queries of the generation workflow, shared by the workflow and the API so names are never retyped. */
import { defineQuery } from '@temporalio/workflow';
import type { TaskState } from '../core/task';

/** Live status and progress of a running task. */
export const taskStateQuery = defineQuery<TaskState>('taskState');
