/**
 * Platform T's wire shapes, as the official SDK defines them (tencentcloud-sdk-nodejs-vod 4.1.287,
 * tencentcloud-sdk-nodejs-vod/tencentcloud/services/vod/v20180717/vod_models.d.ts; its Chinese doc comments carry the per-model limits quoted
 * in models.ts and rules.ts). Every request body the adapter builds and every reply field it reads is typed with
 * these, so a field the real API does not have fails `npm run typecheck` instead of a paid request.
 *
 * Type-only: nothing of the SDK is loaded at run time (the package is a devDependency; signing.ts says why the
 * transport and signature are our own), so these imports are erased from the compiled code.
 */
export type {
  AigcImageOutputConfig,
  AigcImageTask,
  AigcImageTaskInputFileInfo,
  AigcVideoOutputConfig,
  AigcVideoTask,
  AigcVideoTaskInputFileInfo,
  CreateAigcImageTaskRequest,
  CreateAigcImageTaskResponse,
  CreateAigcVideoTaskRequest,
  CreateAigcVideoTaskResponse,
  DescribeTaskDetailRequest,
  DescribeTaskDetailResponse,
  DescribeTasksRequest,
  DescribeTasksResponse,
  TaskSimpleInfo,
  ModifyEventConfigRequest,
  DescribeEventConfigRequest,
  DescribeEventConfigResponse,
  PullEventsRequest,
  PullEventsResponse,
  ConfirmEventsRequest,
  EventContent,
  DescribeAigcUsageDataRequest,
  DescribeAigcUsageDataResponse,
  AigcUsageDataItem,
  TaskStatDataItem,
} from 'tencentcloud-sdk-nodejs-vod/tencentcloud/services/vod/v20180717/vod_models';
