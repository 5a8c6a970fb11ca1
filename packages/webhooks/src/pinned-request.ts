import { type Agent, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { type LookupFunction, isIP } from "node:net";
import type { ResolvedTarget } from "./network-guard";

export interface PinnedRequestOptions {
  method: string;
  headers: OutgoingHttpHeaders;
  /** `false`: a connection of its own, never one a pool kept; the default agent otherwise. */
  agent?: Agent | false;
  /** Aborts the request (it then fails with an `AbortError`). */
  signal?: AbortSignal;
}

/**
 * One request to a target the guard checked (TargetGuard.resolve), connected to the address it
 * checked: the `lookup` hands node's http client that address whatever the host's DNS says by
 * now (rebinding), and the client never follows a redirect itself (fetch would do both its own
 * way). Every outgoing request of mailstop to an address a user gave (webhook deliveries, link
 * checks) goes through here. Nothing is sent until the caller ends the request.
 */
export function pinnedRequest(target: ResolvedTarget, options: PinnedRequestOptions, onResponse: (response: IncomingMessage) => void): ClientRequest {
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const https = target.url.protocol === "https:";
  const send = https ? httpsRequest : httpRequest;
  // TLS is checked against the name in the URL (SNI and the certificate); an address literal has no name to send.
  const servername = https && isIP(target.url.hostname.replace(/^\[|\]$/g, "")) === 0 ? { servername: target.url.hostname } : {};
  return send(
    target.url,
    {
      method: options.method,
      lookup: pinned,
      headers: options.headers,
      ...(options.agent === undefined ? {} : { agent: options.agent }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...servername,
    },
    onResponse,
  );
}
