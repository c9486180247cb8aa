export { ColdchainClient, OPERATION_METHODS, type ClientOptions } from './client';
export * from './errors';
export { Paginator, type Page } from './paging';
export type {
  CatalogueFamily,
  CatalogueResource,
  DownloadResult,
  ReportDownload,
  ShipmentId,
  TelemetryBucketQuery,
  TelemetryQuery,
} from './resources';
export type { Logger } from './transport';
export type { CreateOptions, PageItem, QueryParams, RequestBody, RequestOptions, ResponseBody, ResponseInfo, WithResponse } from './types';
export * from './webhooks';
export * from './standard-webhooks';
export type * from './generated/models';
export type { components, operations, paths } from './generated/openapi';
export { API_VERSION, OPERATIONS, type OperationId, type OperationInfo } from './generated/operations';
export { VERSION } from './version';
