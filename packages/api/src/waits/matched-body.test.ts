import { MailstopError } from "@mailstop/core";
import { EncodedJson } from "@mailstop/http";
import { buildValidators, publicDocument } from "@mailstop/openapi";
import type { MessageView } from "../messages/message.view";
import { matchedBody } from "./matched-body";

// The matched body is written by hand around the shared view; nothing but this test holds it
// to the document. The project's validator checks request bodies against the document, so the
// document's `WaitResult` is made the body of one operation of a copy of it.
const CHECK = "checkWaitResult";
const validator = buildValidators({
  ...publicDocument(),
  paths: { "/wait-result": { post: { operationId: CHECK, requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/WaitResult" } } } } } } },
}).get(CHECK)!;

/** What the validator finds wrong with `body` as a `WaitResult`; none when it conforms. */
function issuesOf(body: unknown): unknown[] {
  try {
    validator.validate({ body, query: {}, params: {} });
    return [];
  } catch (error) {
    if (error instanceof MailstopError && error.code === "invalid_request") return (error.details as { errors: unknown[] }).errors;
    throw error;
  }
}

const ORIGIN = "https://mailstop.example";
const slice = (format: string, preview: string) => ({ preview, size: 4096, truncated: true, url: `${ORIGIN}/v1/messages/msg_01full/body?format=${format}` });

const fullyPopulated: MessageView = {
  id: "msg_01full",
  inbox_id: "ibx_01full",
  inbox: "signup-7f3a@in.mailstop.example",
  message_id: "<welcome.1@acme.example>",
  received_at: "2026-03-01T12:34:56.789Z",
  subject: "Welcome to Acme — “quoted” \\ and \u2028 a line separator",
  from: { address: "noreply@acme.example", name: "Acme" },
  to: [{ address: "signup-7f3a@in.mailstop.example", name: null }],
  cc: [{ address: "team@acme.example", name: "Team" }],
  reply_to: [{ address: "help@acme.example", name: "Help" }],
  correlation_id: "run-42",
  labels: { recipient: "user@customer.example", env: "staging" },
  size: 18_432,
  codes: ["482913", "ABC-123"],
  links: [
    { url: "https://acme.example/verify?t=1", kind: "verify", text: "Verify your email" },
    { url: "https://acme.example/unsubscribe", kind: "unsubscribe", text: null },
  ],
  attachments: [{ id: "att_01full", filename: "invoice.pdf", content_type: "application/pdf", size: 2048, url: `${ORIGIN}/v1/messages/msg_01full/attachments/att_01full` }],
  body: {
    text: slice("text", "Your code is 482913"),
    html: slice("html", "<p>Your code is <b>482913</b></p>"),
    raw: slice("raw", "Received: from mx.acme.example\r\n"),
    headers: slice("headers", "Subject: Welcome\r\n"),
  },
  parse_warnings: ["header_too_large"],
  checks: { authentication: "none", html: "ok", links: "not_checked", spam: "not_configured" },
};

const sparse: MessageView = {
  id: "msg_01sparse",
  inbox_id: "ibx_01sparse",
  inbox: "empty@in.mailstop.example",
  message_id: null,
  received_at: "2026-03-01T00:00:00.000Z",
  subject: "",
  from: null,
  to: [],
  cc: [],
  reply_to: [],
  correlation_id: null,
  labels: {},
  size: 0,
  codes: [],
  links: [],
  attachments: [{ id: "att_01sparse", filename: null, content_type: "application/octet-stream", size: 0, url: `${ORIGIN}/v1/messages/msg_01sparse/attachments/att_01sparse` }],
  body: { text: { preview: "", size: 0, truncated: false, url: null } },
  parse_warnings: [],
  checks: { authentication: null, html: null, links: "not_checked", spam: "not_configured" },
};

describe("the matched wait's hand-built body", () => {
  it.each([
    ["a fully populated view", fullyPopulated, 1234],
    ["a view of nulls and empty lists", sparse, 0],
  ])("is a WaitResult of the public document, and what JSON.stringify of the same object gives, for %s", (_, view, waitedMs) => {
    const body = JSON.parse(matchedBody(EncodedJson.of(view), waitedMs).bytes.toString("utf8"));
    expect(issuesOf(structuredClone(body))).toEqual([]);
    expect(body).toEqual(JSON.parse(JSON.stringify({ status: "matched", message: view, waited_ms: waitedMs })));
  });

  it("is refused by the same check when a key drifts from the schema", () => {
    const drifted = JSON.parse(JSON.stringify({ status: "matched", messages: sparse, waited_ms: 0 }));
    expect(issuesOf(drifted)).not.toEqual([]);
  });
});
