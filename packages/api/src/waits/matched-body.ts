import { EncodedJson } from "@mailstop/http";
import type { PublicComponents } from "@mailstop/openapi";
import type { MessageView } from "../messages/message.view";

type WaitResult = PublicComponents["schemas"]["WaitResult"];

const MATCHED_HEAD = Buffer.from('{"status":"matched","message":');

/**
 * A matched wait's body around its shared view: only `waited_ms` is its own. Written by hand
 * so that the view, encoded once for every wait it matches, is copied rather than stringified
 * again; matched-body.test.ts holds it to the document's `WaitResult`.
 */
export function matchedBody(view: EncodedJson<MessageView>, waitedMs: number): EncodedJson<WaitResult> {
  return new EncodedJson(Buffer.concat([MATCHED_HEAD, view.bytes, Buffer.from(`,"waited_ms":${waitedMs}}`)]));
}
