import type { Request, Response } from "express";
import type { AuthContext } from "./auth-context";

type JsonOf<T> = T extends { content: { "application/json": infer J } } ? J : never;

/** The JSON request body an operation declares. */
export type BodyOf<O> = O extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
/** The query parameters an operation declares, after defaults and coercion. */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : Record<string, never>;
/** The path parameters an operation declares. */
export type PathOf<O> = O extends { parameters: { path?: infer P } } ? NonNullable<P> : Record<string, never>;
/**
 * A JSON body already encoded, typed as the value it encodes. A route that answers many
 * requests with the same document (every wait one arrival matches) encodes it once and sends
 * the same bytes to each, instead of stringifying and encoding it once per response. Sent as
 * is, with its length and no ETag.
 */
export class EncodedJson<T> {
  /** Never set: ties the bytes to the type they encode. */
  declare readonly encodes?: T;
  constructor(readonly bytes: Buffer) {}

  /** `value` encoded as `res.json` would. */
  static of<T>(value: T): EncodedJson<T> {
    return new EncodedJson(Buffer.from(JSON.stringify(value)));
  }
}

/** The JSON replies (status and body, as a value or already encoded) an operation declares for 200, 201 and 202. */
export type ReplyOf<O> = O extends { responses: infer R }
  ? { [S in keyof R & (200 | 201 | 202)]: { status: S; body: JsonOf<R[S]> | EncodedJson<JsonOf<R[S]>>; headers?: Record<string, string> } }[keyof R & (200 | 201 | 202)]
  : never;

export interface OpenRouteContext<O> {
  body: BodyOf<O>;
  query: QueryOf<O>;
  params: PathOf<O>;
  requestId: string;
  req: Request;
  res: Response;
}

export interface RouteContext<O> extends OpenRouteContext<O> {
  auth: AuthContext;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> } | undefined;

/**
 * One operation of an OpenAPI document and its handler. Method, path, scope and request
 * validation come from the document; the handler returns a typed JSON reply, or `undefined`
 * when it wrote a non-JSON response (HTML, a redirect, a stream) itself.
 */
export interface RouteDefinition {
  operationId: string;
  /**
   * `api-key`: the document's x-scope applies; `api-key-or-stream-token`: the same, or a stream
   * token in `?token=` (the event stream); `none`: meta routes; `admin`: the admin token.
   */
  access: "api-key" | "api-key-or-stream-token" | "none" | "admin";
  /**
   * The request holds its connection for seconds or hours (a blocking wait, an event stream),
   * thousands at a time: served below express's router (see HeldRoutes).
   */
  held?: true;
  handle(ctx: UntypedRouteContext): Promise<Reply>;
}

/** What the mount passes; the typed contexts above are views of it. */
export interface UntypedRouteContext {
  body: any;
  query: Record<string, any>;
  params: Record<string, string>;
  auth: AuthContext | null;
  requestId: string;
  req: Request;
  res: Response;
}

/** A route called with an API key (or a stream token), typed from the generated operations of its document. */
export function defineRoute<Ops>(access: "api-key" | "api-key-or-stream-token" = "api-key") {
  return <Id extends keyof Ops & string>(
    operationId: Id,
    handle: (ctx: RouteContext<Ops[Id]>) => Promise<ReplyOf<Ops[Id]> | undefined>,
  ): RouteDefinition => ({ operationId, access, handle: handle as unknown as RouteDefinition["handle"] });
}

/** A route that needs no credential (`none`) or the operator's admin token (`admin`). */
export function defineOpenRoute<Ops>(access: "none" | "admin") {
  return <Id extends keyof Ops & string>(
    operationId: Id,
    handle: (ctx: OpenRouteContext<Ops[Id]>) => Promise<ReplyOf<Ops[Id]> | undefined>,
  ): RouteDefinition => ({ operationId, access, handle: handle as unknown as RouteDefinition["handle"] });
}

/** `route`, marked as one that holds its connection (see RouteDefinition.held). */
export function heldRoute(route: RouteDefinition): RouteDefinition {
  return { ...route, held: true };
}
