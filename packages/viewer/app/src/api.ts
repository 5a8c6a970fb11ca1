import type { components } from "../../../openapi/src/generated/openapi";

type Schemas = components["schemas"];
export type Inbox = Schemas["Inbox"];
export type MessageView = Schemas["MessageView"];
export type AttachmentRef = Schemas["AttachmentRef"];
export type InboxList = Schemas["InboxList"];
export type MessageList = Schemas["MessageList"];
export type StreamToken = Schemas["StreamToken"];
export type AttachmentLink = Schemas["AttachmentLink"];
export type MessageChecks = Schemas["MessageChecks"];
export type LinkCheck = Schemas["LinkCheck"];
export type BodyFormat = "text" | "html" | "raw" | "headers";

/** A failure the API answered with its error envelope (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    reason: string,
    /** The envelope's `details`, when it has any. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(reason);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The public API, called with the pasted key as a bearer token. Paths are resolved against
 * the directory above /ui/, so the viewer works behind a path prefix like the API itself.
 */
export class Api {
  readonly root: URL;

  constructor(
    private readonly key: string,
    pageUrl: string = location.href,
  ) {
    this.root = new URL("../", pageUrl);
  }

  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ""), this.root);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  async json<T>(method: string, path: string, query?: Query): Promise<T> {
    const response = await this.send(method, path, query);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  async text(path: string, query?: Query): Promise<string> {
    return (await this.send("GET", path, query)).text();
  }

  async blob(path: string, query?: Query): Promise<Blob> {
    return (await this.send("GET", path, query)).blob();
  }

  private async send(method: string, path: string, query?: Query): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.url(path, query), { method, headers: { authorization: `Bearer ${this.key}`, accept: "application/json" }, cache: "no-store" });
    } catch {
      throw new ApiError(0, "network", "The server did not answer.");
    }
    if (response.ok) return response;
    const envelope = (await response.json().catch(() => null)) as { error?: { code?: string; reason?: string; details?: Record<string, unknown> } } | null;
    throw new ApiError(response.status, envelope?.error?.code ?? "unknown", envelope?.error?.reason ?? `HTTP ${response.status}`, envelope?.error?.details ?? {});
  }
}
