import createClient, { type Client, type ClientPathsWithMethod, type MethodResponse } from "openapi-fetch";
import type { ResolvedOptions } from "./config.js";
import { MailstopError } from "./errors.js";
import { keyGuardedFetch } from "./key-guard.js";
import { retryingFetch } from "./retry.js";
import type { Paths } from "./types.js";

/** What every resource shares: the typed openapi-fetch client (with retries) and the options. */
export interface Http {
  readonly api: Client<Paths>;
  readonly options: ResolvedOptions;
  /** The Authorization header of the configured key (empty without one). */
  auth(): Record<string, string>;
}

export function createHttp(resolved: ResolvedOptions): Http {
  const options = { ...resolved, fetch: keyGuardedFetch(resolved.fetch, resolved.baseUrl, resolved.apiKey) };
  const auth = (): Record<string, string> => (options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` });
  const api = createClient<Paths>({ baseUrl: options.baseUrl, headers: auth(), fetch: retryingFetch(options.fetch, options) });
  return { api, options, auth };
}

/** The shape of every openapi-fetch answer. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; a failed one throws its {@link MailstopError}. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || error !== undefined) throw MailstopError.fromResponse(response, error);
  return data as T;
}

type Api = Http["api"];
type OneVerb = "get" | "post" | "delete";
/** The routes that act on one resource, named by the `{id}` in their path. */
type OnePath<Verb extends OneVerb> = Extract<ClientPathsWithMethod<Api, Verb>, `${string}{id}${string}`>;

/**
 * `verb path` on the resource `id`, unwrapped: the get, delete and actions (verify, test,
 * rotate-secret, checks…) of every resource, which differ in nothing else. The answer's type
 * is the route's own, so a method that declares another fails to compile.
 */
export function onOne<Verb extends OneVerb, Path extends OnePath<Verb>>(http: Http, verb: Verb, path: Path, id: string): Promise<MethodResponse<Api, Verb, Path>> {
  // openapi-fetch types a route's init per path; a path left generic here cannot be matched
  // to it, and every route of OnePath takes exactly `{ path: { id } }`.
  const answer = http.api.request(verb, path, { params: { path: { id } } } as never);
  return unwrap(answer as Promise<Answer<MethodResponse<Api, Verb, Path>>>);
}

/** Every item of a paged list, page after page (each page one request). */
export async function* paginate<T, Q extends { cursor?: string }>(list: (query: Q) => Promise<{ data: T[]; next_cursor: string | null }>, query: Q): AsyncGenerator<T> {
  let cursor = query.cursor;
  do {
    const page = await list({ ...query, ...(cursor === undefined ? {} : { cursor }) });
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}
