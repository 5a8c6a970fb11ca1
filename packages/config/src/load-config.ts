import { cleanEnv } from "envalid";
import { CONFIG_SPEC } from "./schema";
import type { ParserCheck } from "./validators";

/** The validated configuration of one mailstop process. */
export interface Config {
  host: string;
  http: { port: number; publicUrl: string };
  /** Where a split api reaches a waiter for POST /mcp's waits; null: through publicUrl. */
  waiterUrl: string | null;
  region: "us" | "eu";
  environment: "local" | "staging" | "production";
  brand: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** `auto`: pretty on a terminal, JSON otherwise (see @mailstop/logging). */
  logFormat: "auto" | "pretty" | "json";
  /** The operations listener (/health, /ready, /metrics) of the targets without an HTTP listener. */
  opsPort: number;
  /** Off: the runtime records through a recorder that does nothing, and no listener serves /metrics. */
  metrics: { enabled: boolean };
  sharedDomain: string;
  mxHost: string;
  captureHost: string;
  /** The capture relay host given to clients with SMTP credentials: one they can reach. */
  captureClientHost: string;
  abuseContact: string;
  dnsServers: string[] | null;
  /** The checks the parser computes as each message is stored (MAILSTOP_CHECKS). */
  checks: ParserCheck[];
  /** The caniemail clients (globs allowed) a message's HTML is checked against. */
  htmlClients: string[];
  /** SpamAssassin's spamd, asked for each message's spam score; null: not configured. */
  spamd: { host: string; port: number } | null;
  adminToken: string | null;
  bootstrapApiKey: string | null;
  bootstrapSmtpPassword: string | null;
  databaseUrl: string | null;
  redisUrl: string | null;
  redisPrefix: string;
  jobLockMs: number;
  parserConcurrency: number;
  /** Whether the monolith runs its parser on a worker thread (only ever on PostgreSQL and Redis); auto: where cores are to spare. */
  parserThread: "auto" | "on" | "off";
  dataDir: string;
  /** MAILSTOP_MIN_FREE_DISK_MB in bytes: the free space the embedded monolith keeps under MAILSTOP_DATA_DIR (0: no check). */
  minFreeDiskBytes: number;
  s3: { endpoint: string; publicEndpoint: string | null; accessKey: string | null; secretKey: string | null; bucket: string; region: string } | null;
  smtp: { port: number; capturePort: number; capturePublicPort: number; maxMessageBytes: number; simDelayMs: number; tls: { certFile: string; keyFile: string } | null };
  reapIntervalSeconds: number;
  /** The accept ledger's repair: how old an open transaction is before its job is queued again. */
  reconcileGraceSeconds: number;
  /** How old a raw object without a ledger row or message must be before the reaper deletes it. */
  orphanSweepAgeSeconds: number;
  /** Seconds between orphan sweeps: hourly by default, since an orphan is a day old before it goes. */
  orphanSweepIntervalSeconds: number;
  webhooks: {
    /** MAILSTOP_SECRETS_KEY as given (hex or base64); null: the monolith generates one. */
    secretsKey: string | null;
    /** null: the environment's default (see MAILSTOP_WEBHOOK_ALLOW_NETWORKS). */
    allowNetworks: string[] | null;
    /** null: the default schedule. */
    retryScheduleSeconds: number[] | null;
    disableAfter: number;
  };
  stream: { heartbeatSeconds: number; tokenTtlSeconds: number; maxDurationSeconds: number };
  /** Requests per second per API key and route class, unless the key's project sets its own. */
  rateLimits: { enabled: boolean; read: number; write: number };
  /** The API keys each HTTP-serving process keeps (ApiKeyCache); `entries` 0 when off. */
  keyCache: { entries: number };
  /** Directory of the published articles; null: the articles bundled with the api package. */
  contentDir: string | null;
}

/** Invalid configuration: one line per offending variable, all of them at once. */
export class ConfigError extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join("\n"));
    this.name = "ConfigError";
  }
}

/** Bind addresses that mean "every interface": no client connects to them by that name. */
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * Parses and validates `env` once at start-up. An empty variable counts as unset, as shells
 * and compose files commonly export `VAR=` to mean "no value".
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const raw = cleanEnv(present, CONFIG_SPEC, {
    reporter: ({ errors }) => {
      const lines = Object.entries(errors).map(([name, error]) => `invalid configuration: ${name} ${describe(error)}`);
      if (lines.length > 0) throw new ConfigError(lines);
    },
  });

  if ((raw.MAILSTOP_TLS_CERT === undefined) !== (raw.MAILSTOP_TLS_KEY === undefined)) {
    const missing = raw.MAILSTOP_TLS_CERT === undefined ? "MAILSTOP_TLS_CERT" : "MAILSTOP_TLS_KEY";
    throw new ConfigError([`invalid configuration: ${missing} must be set together with ${missing === "MAILSTOP_TLS_CERT" ? "MAILSTOP_TLS_KEY" : "MAILSTOP_TLS_CERT"}`]);
  }
  const sharedDomain = raw.MAILSTOP_SHARED_DOMAIN;
  const s3Endpoint = raw.S3_ENDPOINT;
  return {
    host: raw.MAILSTOP_HOST,
    http: { port: raw.MAILSTOP_HTTP_PORT, publicUrl: raw.MAILSTOP_PUBLIC_URL ?? `http://localhost:${raw.MAILSTOP_HTTP_PORT}` },
    waiterUrl: raw.MAILSTOP_WAITER_URL ?? null,
    region: raw.MAILSTOP_REGION,
    environment: raw.MAILSTOP_ENVIRONMENT,
    brand: raw.MAILSTOP_BRAND,
    logLevel: raw.MAILSTOP_LOG_LEVEL,
    logFormat: raw.MAILSTOP_LOG_FORMAT,
    opsPort: raw.MAILSTOP_OPS_PORT,
    metrics: { enabled: raw.MAILSTOP_METRICS === "on" },
    sharedDomain,
    mxHost: raw.MAILSTOP_MX_HOST ?? `mx.${sharedDomain}`,
    captureHost: raw.MAILSTOP_CAPTURE_HOST ?? `capture.${sharedDomain}`,
    // The default published name (capture.mailstop.test) resolves nowhere: a client told it
    // could not connect. Unset, the listener's own address is what reaches the relay.
    captureClientHost: raw.MAILSTOP_CAPTURE_HOST ?? (WILDCARD_HOSTS.has(raw.MAILSTOP_HOST) ? "localhost" : raw.MAILSTOP_HOST),
    abuseContact: raw.MAILSTOP_ABUSE_CONTACT ?? `abuse@${sharedDomain}`,
    dnsServers: raw.MAILSTOP_DNS_SERVERS ?? null,
    checks: raw.MAILSTOP_CHECKS,
    htmlClients: raw.MAILSTOP_HTML_CLIENTS,
    spamd: raw.MAILSTOP_SPAMD ?? null,
    adminToken: raw.MAILSTOP_ADMIN_TOKEN ?? null,
    bootstrapApiKey: raw.MAILSTOP_BOOTSTRAP_API_KEY ?? null,
    bootstrapSmtpPassword: raw.MAILSTOP_BOOTSTRAP_SMTP_PASSWORD ?? null,
    databaseUrl: raw.DATABASE_URL ?? null,
    redisUrl: raw.REDIS_URL ?? null,
    redisPrefix: raw.MAILSTOP_REDIS_PREFIX,
    jobLockMs: raw.MAILSTOP_JOB_LOCK_MS,
    parserConcurrency: raw.MAILSTOP_PARSER_CONCURRENCY,
    parserThread: raw.MAILSTOP_PARSER_THREAD,
    dataDir: raw.MAILSTOP_DATA_DIR,
    minFreeDiskBytes: raw.MAILSTOP_MIN_FREE_DISK_MB * 1024 * 1024,
    s3:
      s3Endpoint === undefined
        ? null
        : {
            endpoint: s3Endpoint,
            publicEndpoint: raw.S3_PUBLIC_ENDPOINT ?? null,
            accessKey: raw.S3_ACCESS_KEY ?? null,
            secretKey: raw.S3_SECRET_KEY ?? null,
            bucket: raw.S3_BUCKET,
            region: raw.S3_REGION,
          },
    smtp: {
      port: raw.MAILSTOP_SMTP_PORT,
      capturePort: raw.MAILSTOP_CAPTURE_PORT,
      capturePublicPort: raw.MAILSTOP_CAPTURE_PUBLIC_PORT ?? raw.MAILSTOP_CAPTURE_PORT,
      maxMessageBytes: raw.MAILSTOP_MAX_MESSAGE_BYTES,
      simDelayMs: raw.MAILSTOP_SIM_DELAY_MS,
      tls: raw.MAILSTOP_TLS_CERT !== undefined && raw.MAILSTOP_TLS_KEY !== undefined ? { certFile: raw.MAILSTOP_TLS_CERT, keyFile: raw.MAILSTOP_TLS_KEY } : null,
    },
    reapIntervalSeconds: raw.MAILSTOP_REAP_INTERVAL_S,
    reconcileGraceSeconds: raw.MAILSTOP_RECONCILE_GRACE_S,
    orphanSweepAgeSeconds: raw.MAILSTOP_ORPHAN_SWEEP_AGE_S,
    orphanSweepIntervalSeconds: raw.MAILSTOP_ORPHAN_SWEEP_INTERVAL_S,
    webhooks: {
      secretsKey: raw.MAILSTOP_SECRETS_KEY ?? null,
      allowNetworks: raw.MAILSTOP_WEBHOOK_ALLOW_NETWORKS ?? null,
      retryScheduleSeconds: raw.MAILSTOP_WEBHOOK_RETRY_SCHEDULE ?? null,
      disableAfter: raw.MAILSTOP_WEBHOOK_DISABLE_AFTER,
    },
    stream: {
      heartbeatSeconds: raw.MAILSTOP_HEARTBEAT_S,
      tokenTtlSeconds: raw.MAILSTOP_STREAM_TOKEN_TTL_S,
      maxDurationSeconds: raw.MAILSTOP_STREAM_MAX_DURATION_S,
    },
    rateLimits: { enabled: raw.MAILSTOP_RATE_LIMITS === "on", read: raw.MAILSTOP_RATE_LIMIT_READ, write: raw.MAILSTOP_RATE_LIMIT_WRITE },
    keyCache: { entries: raw.MAILSTOP_KEY_CACHE === "on" ? raw.MAILSTOP_KEY_CACHE_ENTRIES : 0 },
    contentDir: raw.MAILSTOP_CONTENT_DIR ?? null,
  };
}

function describe(error: Error | undefined): string {
  const message = error?.message ?? "is invalid";
  // envalid's own messages ("Invalid port input: \"x\"", "Value \"x\" not in choices [a,b]")
  // read fine after the variable name once lower-cased at the start.
  return message.charAt(0).toLowerCase() + message.slice(1);
}
