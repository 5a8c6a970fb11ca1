import { create } from "content-disposition";

/**
 * The `Content-Disposition` of a download: `attachment` with an ASCII `filename` fallback and
 * the RFC 5987 `filename*` for the rest (the `content-disposition` package, express's own), so
 * every browser saves the file under a name and never renders it. `filename` must already be
 * safe to show (see the API's safeFilename); this only encodes it.
 */
export function attachmentDisposition(filename: string): string {
  return create(filename, { type: "attachment" });
}
