import { readFile } from "node:fs/promises";
import { generate } from "selfsigned";

export interface TlsCredentials {
  key: string;
  cert: string;
}

/**
 * The STARTTLS certificate: the configured PEM files, else a self-signed certificate for
 * `hostnames`, generated once per process (STARTTLS is offered either way; senders that verify
 * certificates need a configured one).
 */
export async function loadTlsCredentials(files: { certFile: string; keyFile: string } | null, hostnames: readonly string[]): Promise<TlsCredentials> {
  if (files !== null) {
    const [cert, key] = await Promise.all([readFile(files.certFile, "utf8"), readFile(files.keyFile, "utf8")]);
    return { cert, key };
  }
  const pems = await generate([{ name: "commonName", value: hostnames[0] ?? "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [...hostnames, "localhost"].map((value) => ({ type: 2 as const, value })) }],
  } as never);
  return { key: pems.private, cert: pems.cert };
}
