import ipaddr from "ipaddr.js";
import { makeValidator } from "envalid";
import { apiKeyEnvironment } from "@mailstop/core";

/** Validators envalid lacks. Each throws with a message that completes "VARIABLE: …". */

export const positiveInt = makeValidator<number>((raw) => {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new Error(`must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
});

export const nonNegativeInt = makeValidator<number>((raw) => {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error(`must be a whole number (0 or more), got "${raw}"`);
  return Number(raw);
});

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const domainName = makeValidator<string>((raw) => {
  const value = raw.toLowerCase();
  if (!DOMAIN.test(value)) throw new Error(`must be a domain name such as mailstop.test, got "${raw}"`);
  return value;
});

export const origin = makeValidator<string>((raw) => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`must use http or https, got "${raw}"`);
  // Stored without a trailing slash so `${origin}/v1/...` is always well formed.
  return raw.replace(/\/+$/, "");
});

export const engineUrl = (protocols: readonly string[]) =>
  makeValidator<string>((raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new Error(`must be a URL (${protocols.join(", ")}), got a value that does not parse`);
    }
    if (!protocols.includes(parsed.protocol)) throw new Error(`must start with ${protocols.join(" or ")}`);
    return raw;
  });

// Secrets are never echoed back in the error text.
export const adminToken = makeValidator<string>((raw) => {
  if (raw.length < 32) throw new Error("must be at least 32 characters long");
  return raw;
});

export const bootstrapApiKey = makeValidator<string>((raw) => {
  if (apiKeyEnvironment(raw) === null) throw new Error("must be an API key starting with is_test_ or is_live_ followed by 20 to 128 url-safe characters");
  return raw;
});

export const bootstrapSmtpPassword = makeValidator<string>((raw) => {
  if (!/^[\x21-\x7e]{16,128}$/.test(raw)) throw new Error("must be 16 to 128 visible ASCII characters (no spaces)");
  return raw;
});

export const hostPortList = makeValidator<string[]>((raw) => {
  const entries = raw.split(",").map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!/^[^\s:]+:\d{1,5}$/.test(entry) && !/^\[[0-9a-f:]+\]:\d{1,5}$/i.test(entry)) {
      throw new Error(`must be a comma-separated host:port list, got "${entry}"`);
    }
  }
  return entries;
});

/** One `host:port` (an IPv6 address in brackets), as a server to connect to. */
export const hostPort = makeValidator<{ host: string; port: number }>((raw) => {
  const match = /^([^\s:[\]]+|\[[0-9a-f:.]+\]):(\d{1,5})$/i.exec(raw.trim());
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65_535) throw new Error(`must be host:port (127.0.0.1:783, [::1]:783), got "${raw}"`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port };
});

export const emailClientList = makeValidator<string[]>((raw) => {
  const entries = raw.split(",").map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!/^[a-z0-9*-]+\.[a-z0-9*-]+$/.test(entry)) throw new Error(`must be a comma-separated list of caniemail clients (family.platform: gmail.desktop-webmail, outlook.*), got "${entry}"`);
  }
  if (entries.length === 0) throw new Error("must name at least one email client");
  return entries;
});

/** The checks the parser can compute as a message is stored; links are checked on request, spam with MAILSTOP_SPAMD. */
export const PARSER_CHECKS = ["authentication", "html"] as const;
export type ParserCheck = (typeof PARSER_CHECKS)[number];

export const parserCheckList = makeValidator<ParserCheck[]>((raw) => {
  if (raw.trim() === "none") return [];
  const entries = raw.split(",").map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!(PARSER_CHECKS as readonly string[]).includes(entry)) throw new Error(`must be a comma-separated list of ${PARSER_CHECKS.join(", ")}, or none, got "${entry}"`);
  }
  return [...new Set(entries)] as ParserCheck[];
});

export const cidrList = makeValidator<string[]>((raw) => {
  const entries = raw.split(",").map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!ipaddr.isValidCIDR(entry)) throw new Error(`must be a comma-separated list of CIDR networks (10.0.0.0/8, fd00::/8), got "${entry}"`);
  }
  return entries;
});

export const secondsList = makeValidator<number[]>((raw) => {
  const entries = raw.split(",").map((entry) => entry.trim());
  if (entries.some((entry) => !/^[1-9]\d{0,6}$/.test(entry))) throw new Error(`must be a comma-separated list of whole seconds (5,300,1800), got "${raw}"`);
  return entries.map(Number);
});

/** 32 bytes, as 64 hex digits or base64: the AES-256 key of secrets stored at rest. */
export const secretsKey = makeValidator<string>((raw) => {
  const bytes = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, "hex") : Buffer.from(raw, "base64");
  if (bytes.length !== 32 || (!/^[0-9a-f]{64}$/i.test(raw) && bytes.toString("base64").replace(/=+$/, "") !== raw.replace(/=+$/, ""))) {
    throw new Error("must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)");
  }
  return raw;
});
