/** What stands in for every redacted part of a URL. */
export const REDACTED = "***";

/** Each `name=value` keeps its name; a piece with no `=` could be a bare token, so all of it goes. */
function redactQuery(query: string): string {
  return query
    .split("&")
    .map((piece) => {
      if (piece === "") return piece;
      const equals = piece.indexOf("=");
      return equals === -1 ? REDACTED : `${piece.slice(0, equals)}=${REDACTED}`;
    })
    .join("&");
}

/**
 * A URL as the audit trail and the log show it (docs/decisions.md "Audit and the address guard
 * (issue 29)"): scheme, host, port and path as they are; a user name and a password each become
 * `***`, so does every query value (names stay) and the fragment. Receivers put credentials in
 * exactly those places, and whoever reads the trail or the log needs where a hook pointed, not
 * how it authenticated. A string that is not a URL, or a URL with no host (`user:secret`, whose
"path" is anything), cannot be told apart, so all of it is `***`.
 *
 * `https://user:secret@hooks.example/in?token=abc&v=2` → `https://***:***@hooks.example/in?token=***&v=***`
 */
export function redactUrl(target: string | URL): string {
  if (typeof target === "string" && !URL.canParse(target)) return REDACTED;
  const url = new URL(target);
  if (url.host === "") return REDACTED;
  if (url.username !== "") url.username = REDACTED;
  if (url.password !== "") url.password = REDACTED;
  if (url.search !== "") url.search = redactQuery(url.search.slice(1));
  if (url.hash !== "") url.hash = REDACTED;
  return url.href;
}
