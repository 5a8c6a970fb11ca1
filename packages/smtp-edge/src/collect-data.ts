import type { SMTPServerDataStream } from "smtp-server";
import { REPLY } from "./smtp-reply";

/**
 * The whole DATA of a transaction. The object store takes one PUT with a known length (see
 * @mailstop/blob-store), and the bytes are bounded by the SIZE limit: past it the stream is
 * drained without keeping anything, what was kept is let go at once (not held while the sender
 * goes on sending), and the transaction is refused with 552 5.3.4.
 */
export async function collectData(stream: SMTPServerDataStream): Promise<Buffer> {
  let chunks: Buffer[] | null = [];
  for await (const chunk of stream) {
    if (stream.sizeExceeded) chunks = null;
    else chunks?.push(chunk as Buffer);
  }
  if (stream.sizeExceeded || chunks === null) throw REPLY.tooBig();
  return Buffer.concat(chunks);
}
