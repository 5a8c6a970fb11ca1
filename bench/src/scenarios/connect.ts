import { randomBytes } from "node:crypto";
import nodemailer from "nodemailer";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { median, p99 } from "../lib/stats";
import type { Target } from "../targets/target";

export interface ConnectResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * One connection per message, nodemailer's default transport (no pool): the time from
 * `sendMail` to its promise resolving, which is connect, greeting, EHLO, MAIL, RCPT, DATA and
 * the final 250. Sends are one after another; `startTls` follows nodemailer's default of
 * upgrading when the server offers STARTTLS, otherwise the session stays plain.
 */
export async function connectPerMessage(target: Target, size: MessageSize, count: number, options: { startTls: boolean; maxMs: number }): Promise<ConnectResult> {
  const destination = await target.destination(`connect.${size}-${randomBytes(3).toString("hex")}`);
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: target.smtpPort,
    secure: false,
    ignoreTLS: !options.startTls,
    tls: { rejectUnauthorized: false },
  });
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count && performance.now() - started < options.maxMs; i++) {
    const raw = message(size, destination.address, `connect ${size} #${i}`);
    const before = performance.now();
    await transport.sendMail({ envelope: { from: SENDER, to: [destination.address] }, raw });
    times.push(performance.now() - before);
  }
  transport.close();
  return { samples: times.length, p50Ms: median(times), p99Ms: p99(times) };
}
