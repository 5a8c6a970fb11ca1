import { randomBytes } from "node:crypto";
import nodemailer from "nodemailer";
import { type MessageSize, SENDER, message } from "../lib/mail";
import { median, p99 } from "../lib/stats";
import type { Row } from "../report";
import type { Target } from "../targets/target";
import type { Scenario } from "./scenario";

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

/** Connect → 250 on every column, then mailstop's with STARTTLS (only it offers STARTTLS here). */
export const connectScenario: Scenario = {
  name: "connect",
  async run({ plan, targets: { byName, order, mailstop }, rows, details }) {
    const p50: Row["values"] = {};
    const p99s: string[] = [];
    for (const name of order) {
      const result = await connectPerMessage(byName[name], "2kb", plan.connectSends, { startTls: false, maxMs: plan.connectMaxMs });
      details[`connect.plain.${name}`] = result;
      p50[name] = result.p50Ms;
      p99s.push(`${name} p99 ${result.p99Ms.toFixed(1)} (${result.samples})`);
    }
    rows.push({ scenario: "one connection per message, connect → 250 p50", unit: "ms", values: p50, note: p99s.join(", "), target: { text: "≤ 5 ms", pass: p50.mailstop! <= 5 } });
    const tls = await connectPerMessage(mailstop, "2kb", plan.connectSends, { startTls: true, maxMs: plan.connectMaxMs });
    details["connect.starttls.mailstop"] = tls;
    rows.push({
      scenario: "  same, with STARTTLS (nodemailer upgrades when offered)",
      unit: "ms",
      values: { mailstop: tls.p50Ms },
      note: `p99 ${tls.p99Ms.toFixed(1)} (${tls.samples}); only mailstop offers STARTTLS here`,
    });
  },
};
