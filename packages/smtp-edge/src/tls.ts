import { readFile } from "node:fs/promises";

export interface TlsCredentials {
  key: string;
  cert: string;
}

/**
 * The STARTTLS certificate, or null when STARTTLS is not offered. With configured PEM files,
 * those; else in `staging` and `production` a self-signed certificate for `hostnames`,
 * generated once per process (senders that verify certificates need a configured one); else
 * (`local` without a certificate) none: an SMTP client with default options (nodemailer,
 * framework mailers) upgrades whenever STARTTLS is offered and then rejects a self-signed
 * certificate, so on a laptop the ports stay plain, as Mailpit's and MailDev's do.
 */
export async function loadTlsCredentials(
  files: { certFile: string; keyFile: string } | null,
  environment: "local" | "staging" | "production",
  hostnames: readonly string[],
): Promise<TlsCredentials | null> {
  if (files !== null) {
    const [cert, key] = await Promise.all([readFile(files.certFile, "utf8"), readFile(files.keyFile, "utf8")]);
    return { cert, key };
  }
  if (environment === "local") return null;
  // Required only here: selfsigned and its X.509 libraries are ≈ 7 MB of a process's memory,
  // which a local edge (no STARTTLS) or one with configured files never needs.
  const { generate } = require("selfsigned") as typeof import("selfsigned");
  const pems = await generate([{ name: "commonName", value: hostnames[0] ?? "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [...hostnames, "localhost"].map((value) => ({ type: 2 as const, value })) }],
  } as never);
  return { key: pems.private, cert: pems.cert };
}
