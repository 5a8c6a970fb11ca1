export { publicDocument, adminDocument, OPENAPI_FILES, type OpenApiDocument } from "./document";
export { listOperations, type OperationSpec, type HttpMethod } from "./operations";
export { buildValidators, invalidRequest, type OperationValidator, type ValidationIssue, type ValidRequest } from "./validator";
export type { paths as PublicPaths, operations as PublicOperations, components as PublicComponents } from "./generated/openapi";
export type { paths as AdminPaths, operations as AdminOperations, components as AdminComponents } from "./generated/admin";
