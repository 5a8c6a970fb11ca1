import type { PublicComponents, PublicOperations, PublicPaths } from "@mailstop/openapi";

/** Every schema of the public OpenAPI document (`Schemas["Inbox"]`, `Schemas["MessageView"]`…). */
export type Schemas = PublicComponents["schemas"];
export type Paths = PublicPaths;
/** The query parameters of an operation of the OpenAPI document, by its operationId. */
export type QueryOf<Op extends keyof PublicOperations> = NonNullable<PublicOperations[Op]["parameters"]["query"]>;

export type Inbox = Schemas["Inbox"];
export type MessageView = Schemas["MessageView"];
export type MessageMatch = Schemas["MessageMatch"];
/** The wait's request; `timeout_ms` (default 120000) and `preview_chars` (default 2000) may be left out. */
export type WaitRequest = Omit<Schemas["WaitRequest"], "timeout_ms" | "preview_chars"> & Partial<Pick<Schemas["WaitRequest"], "timeout_ms" | "preview_chars">>;
export type WaitResult = Schemas["WaitResult"];
export type WaitMatched = Schemas["WaitMatched"];
export type WaitTimeout = Schemas["WaitTimeout"];
export type ErrorCode = Schemas["ErrorCode"];
export type ErrorEnvelope = Schemas["Error"];
/** A `message` frame of an inbox's event stream, with its cursor (what a resume starts after). */
export type StreamMessage = Schemas["StreamMessageData"] & { cursor: string };

/** One page of a list route. */
export interface Page<T> {
  data: T[];
  limit: number;
  next_cursor: string | null;
}
