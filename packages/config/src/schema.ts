import { port, str } from "envalid";
import { adminToken, bootstrapApiKey, bootstrapSmtpPassword, cidrList, domainName, emailClientList, engineUrl, PARSER_CHECKS, parserCheckList, hostPort, hostPortList, nonNegativeInt, origin, positiveInt, secondsList, secretsKey } from "./validators";

/**
 * Every environment variable mailstop reads, grouped by the part of the product that uses it.
 * `desc` is the one-line meaning published in docs/configuration.md (generated from this file;
 * `pnpm check` fails when the two drift). Nothing outside this package reads `process.env`.
 */
export const CONFIG_GROUPS = {
  server: {
    MAILSTOP_HOST: str({ default: "127.0.0.1", desc: "Bind address for every listener (0.0.0.0 in the container image)." }),
    MAILSTOP_HTTP_PORT: port({ default: 8025, desc: "HTTP listener: public routes, /stream/v1 and /admin/v1." }),
    MAILSTOP_PUBLIC_URL: origin({ default: undefined, desc: "Origin written into url, stream_url and api_origin (default http://localhost:<http port>)." }),
    MAILSTOP_WAITER_URL: origin({
      default: undefined,
      desc: "Split api only: origin at which the api reaches a waiter (http://waiter:8025 in compose), for the wait_for_message tool of POST /mcp. Unset: through MAILSTOP_PUBLIC_URL. The monolith serves the wait itself.",
    }),
    MAILSTOP_REGION: str({ choices: ["us", "eu"] as const, default: "us", desc: "Region of this deployment; keys of projects in another region are refused." }),
    MAILSTOP_ENVIRONMENT: str({ choices: ["local", "staging", "production"] as const, default: "local", desc: "Deployment environment reported to clients as server.environment." }),
    MAILSTOP_BRAND: str({ default: "mailstop", desc: "Brand string reported by /health and the abuse document." }),
    MAILSTOP_LOG_LEVEL: str({ choices: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, default: "info", desc: "pino log level." }),
    MAILSTOP_LOG_FORMAT: str({
      choices: ["auto", "pretty", "json"] as const,
      default: "auto",
      desc: "Log lines: `json` (one JSON object a line), `pretty` (coloured, for a person), or `auto`: pretty when standard output is a terminal, else JSON.",
    }),
    MAILSTOP_OPS_PORT: port({
      default: 8026,
      desc: "Operations listener of the smtp-edge and parser targets (/health, /ready, /metrics); the HTTP-serving targets answer these on MAILSTOP_HTTP_PORT.",
    }),
    MAILSTOP_METRICS: str({
      choices: ["on", "off"] as const,
      default: "on",
      desc: "off: no Prometheus metric is recorded (nor prom-client's process metrics collected), and /metrics answers 404 on every listener, so a scrape of the instance fails visibly rather than reading an empty target. The benchmark compares both.",
    }),
  },
  content: {
    MAILSTOP_CONTENT_DIR: str({
      default: undefined,
      desc: "Directory of the Markdown articles served under /content/v1/articles (default: the articles bundled with mailstop, packages/api/content/articles). Changed files are picked up within about 10 s.",
    }),
  },
  domains: {
    MAILSTOP_SHARED_DOMAIN: domainName({ default: "mailstop.test", desc: "The shared receiving domain of <project_key>.<tag>@ addresses." }),
    MAILSTOP_MX_HOST: domainName({ default: undefined, desc: "Mail exchanger published in DNS instructions and the abuse document (default mx.<shared domain>)." }),
    MAILSTOP_CAPTURE_HOST: domainName({
      default: undefined,
      desc: "Published capture relay host (default capture.<shared domain>). Also the host given with SMTP credentials when set; unset, those name the listener's own address (MAILSTOP_HOST, localhost for a wildcard), which a client can reach.",
    }),
    MAILSTOP_ABUSE_CONTACT: str({ default: undefined, desc: "Abuse contact address in the abuse document (default abuse@<shared domain>)." }),
    MAILSTOP_DNS_SERVERS: hostPortList({ default: undefined, desc: "Comma-separated host:port resolvers used to verify custom domains and to check a message's DKIM, SPF, DMARC and ARC (default: the system's)." }),
  },
  admin: {
    MAILSTOP_ADMIN_TOKEN: adminToken({ default: undefined, desc: "Enables /admin/v1 when set (at least 32 characters); unset, admin routes answer 404." }),
    MAILSTOP_BOOTSTRAP_API_KEY: bootstrapApiKey({ default: undefined, desc: "Makes the API key of the first-start project deterministic (is_test_… or is_live_…)." }),
    MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: bootstrapSmtpPassword({
      default: undefined,
      desc: "Makes the capture relay password of the first-start project deterministic (16 to 128 visible ASCII characters), so CI need not read it from the log.",
    }),
  },
  engines: {
    DATABASE_URL: engineUrl(["postgres:", "postgresql:"])({ default: undefined, desc: "PostgreSQL connection URL." }),
    REDIS_URL: engineUrl(["redis:", "rediss:"])({ default: undefined, desc: "Redis URL (pub/sub, BullMQ, rate limits, wait slots)." }),
    MAILSTOP_JOB_LOCK_MS: positiveInt({ default: 30_000, desc: "How long a worker's claim on a job lasts; a crashed worker's jobs are retried after it expires." }),
    MAILSTOP_CHECKS: parserCheckList({
      default: [...PARSER_CHECKS],
      desc: "The checks the parser computes as each message is stored: authentication (DKIM, SPF, DMARC and ARC, with DNS lookups), html (support across mail clients); none for neither. A check left out reads null.",
    }),
    MAILSTOP_HTML_CLIENTS: emailClientList({
      default: ["gmail.desktop-webmail", "outlook.windows", "outlook.outlook-com", "apple-mail.macos", "apple-mail.ios", "yahoo.desktop-webmail"],
      desc: "Comma-separated caniemail clients (family.platform, globs allowed: outlook.*) a message's HTML is checked against, in its checks.html.",
    }),
    MAILSTOP_SPAMD: hostPort({
      default: undefined,
      desc: "SpamAssassin's spamd as host:port: the parser asks it for each message's spam score (checks.spam), within 10 s. Unset: spam reads not_configured.",
    }),
    MAILSTOP_PARSER_CONCURRENCY: positiveInt({ default: 32, desc: "Parse jobs one parser process runs at once; the work mostly waits on the object store and database." }),
    MAILSTOP_PARSER_THREAD: str({
      choices: ["auto", "on", "off"] as const,
      default: "auto",
      desc: "on: the monolith (target all) on PostgreSQL and Redis runs its parser on a worker thread of its own, so parsing and storing take another core while SMTP and HTTP keep theirs; off: on the main thread; auto: on where the machine has 4 cores or more (on 2 cores shared with the engines it measured no faster and cost 85 MB). The embedded stand-ins live in the main thread, so without DATABASE_URL and REDIS_URL the parser always runs there.",
    }),
    MAILSTOP_REDIS_PREFIX: str({ default: "mailstop", desc: "Prefix of every Redis key and channel, so installations can share one Redis." }),
    MAILSTOP_DATA_DIR: str({ default: "./.mailstop", desc: "Directory of the embedded stand-ins' data." }),
  },
  objectStore: {
    S3_ENDPOINT: engineUrl(["http:", "https:"])({ default: undefined, desc: "S3-compatible object store endpoint (MinIO, S3, R2)." }),
    S3_ACCESS_KEY: str({ default: undefined, desc: "Object store access key." }),
    S3_SECRET_KEY: str({ default: undefined, desc: "Object store secret key." }),
    S3_BUCKET: str({ default: "mailstop", desc: "Bucket holding raw messages, parts and attachments (created when missing)." }),
    S3_REGION: str({ default: "us-east-1", desc: "Object store region." }),
    S3_PUBLIC_ENDPOINT: engineUrl(["http:", "https:"])({
      default: undefined,
      desc: "The object store's endpoint as clients reach it, for the presigned download URLs the API gives (docker compose: http://localhost:9000, where S3_ENDPOINT is http://minio:9000). Default: S3_ENDPOINT.",
    }),
  },
  smtp: {
    MAILSTOP_SMTP_PORT: port({ default: 2525, desc: "Receiving edge (MX) listener." }),
    MAILSTOP_CAPTURE_PORT: port({ default: 2587, desc: "Capture relay listener (AUTH required; after STARTTLS where STARTTLS is offered, see MAILSTOP_TLS_CERT)." }),
    MAILSTOP_CAPTURE_PUBLIC_PORT: port({ default: undefined, desc: "Capture relay port given to clients with SMTP credentials, when a port mapping publishes it elsewhere (default MAILSTOP_CAPTURE_PORT; 587 in compose and Kubernetes)." }),
    MAILSTOP_TLS_CERT: str({
      default: undefined,
      desc: "PEM certificate file for STARTTLS. Unset: in `staging` and `production` a self-signed certificate generated at start; in `local` no STARTTLS on either port and AUTH in clear, so SMTP clients with default options work.",
    }),
    MAILSTOP_TLS_KEY: str({ default: undefined, desc: "PEM private key file of MAILSTOP_TLS_CERT." }),
    MAILSTOP_MAX_MESSAGE_BYTES: positiveInt({ default: 26_214_400, desc: "SMTP SIZE limit in bytes." }),
    MAILSTOP_REAP_INTERVAL_S: positiveInt({ default: 60, desc: "Seconds between reaper runs (expired and deleted messages, and their stored objects)." }),
    MAILSTOP_RECONCILE_GRACE_S: positiveInt({
      default: 60,
      desc: "Seconds an accepted transaction may stay unparsed before the reconciler queues its parse job again (a job lost with Redis, or never enqueued); never less than 15 s in effect (the edge's write deadline and its clean-up).",
    }),
    MAILSTOP_ORPHAN_SWEEP_AGE_S: positiveInt({
      default: 86_400,
      desc: "Age in seconds after which a raw object no accepted transaction or message knows is deleted by the orphan sweep; never less than 15 s in effect (the edge's write deadline and its clean-up).",
    }),
    MAILSTOP_ORPHAN_SWEEP_INTERVAL_S: positiveInt({ default: 3_600, desc: "Seconds between runs of the orphan sweep (raw objects older than MAILSTOP_ORPHAN_SWEEP_AGE_S that no accepted transaction or message knows)." }),
    MAILSTOP_MIN_FREE_DISK_MB: nonNegativeInt({
      default: 64,
      desc: "Embedded monolith only (no DATABASE_URL, or no S3_ENDPOINT): mail is refused with `452 4.3.1` while less than this many MiB (plus the message) would stay free on the file system of MAILSTOP_DATA_DIR, so PGlite keeps room for its next 16 MiB WAL segment and reads go on. 0 turns the check off.",
    }),
    MAILSTOP_SIM_DELAY_MS: positiveInt({ default: 5000, desc: "How long a sim.delay message stays invisible, in milliseconds." }),
  },
  webhooks: {
    MAILSTOP_SECRETS_KEY: secretsKey({
      default: undefined,
      desc: "32-byte key (64 hex digits or base64) encrypting webhook secrets at rest. The monolith generates one under MAILSTOP_DATA_DIR when unset; split targets refuse to start without it.",
    }),
    MAILSTOP_WEBHOOK_ALLOW_NETWORKS: cidrList({
      default: undefined,
      desc: "CIDR networks webhooks and link checks may reach besides globally reachable addresses (default: loopback and private ranges in `local`, none elsewhere); ::/96 (but ::1) and fec0::/10 stay refused whatever it says.",
    }),
    MAILSTOP_WEBHOOK_RETRY_SCHEDULE: secondsList({ default: undefined, desc: "Seconds before each retry of a failed webhook delivery (default 5,300,1800,7200,18000,36000,36000: 8 attempts)." }),
    MAILSTOP_WEBHOOK_DISABLE_AFTER: positiveInt({ default: 10, desc: "Consecutive events that exhausted their attempts after which an endpoint is disabled (disabled_reason failing)." }),
  },
  rateLimits: {
    MAILSTOP_RATE_LIMITS: str({
      choices: ["on", "off"] as const,
      default: "on",
      desc: "off: no per-key rate limits at all (an instance whose every client you trust; the benchmark compares both). Allowances and organisation limits still apply.",
    }),
    MAILSTOP_RATE_LIMIT_READ: positiveInt({
      default: 50,
      desc: "Requests per second each API key may make to read routes, in bursts of up to twice that; a project's rate_limit_read replaces it. Blocking waits are never limited.",
    }),
    MAILSTOP_RATE_LIMIT_WRITE: positiveInt({
      default: 10,
      desc: "Requests per second each API key may make to write routes, in bursts of up to twice that; a project's rate_limit_write replaces it.",
    }),
  },
  authentication: {
    MAILSTOP_KEY_CACHE: str({
      choices: ["on", "off"] as const,
      default: "on",
      desc: "off: every request reads its API key from the database. On: each api and waiter process keeps the keys it used lately for up to 5 s, forgetting a key on every instance within a second of its revocation, its organisation's suspension or a change of limits (through Redis when set).",
    }),
    MAILSTOP_KEY_CACHE_ENTRIES: positiveInt({ default: 10_000, desc: "Most API keys one process keeps in that cache (about 1 KB each); the least recently used go first." }),
  },
  stream: {
    MAILSTOP_HEARTBEAT_S: positiveInt({
      default: 15,
      desc: "Seconds between event stream heartbeats. A client that takes nothing for a whole interval while frames wait is closed with slow_consumer.",
    }),
    MAILSTOP_STREAM_TOKEN_TTL_S: positiveInt({ default: 300, desc: "Lifetime of a stream token in seconds." }),
    MAILSTOP_STREAM_MAX_DURATION_S: positiveInt({ default: 3600, desc: "Longest event stream connection in seconds, then closed with max_duration." }),
  },
} as const;

/** All groups flattened into one envalid spec object. */
export const CONFIG_SPEC = Object.assign({}, ...Object.values(CONFIG_GROUPS)) as UnionToIntersection<
  (typeof CONFIG_GROUPS)[keyof typeof CONFIG_GROUPS]
>;

type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (arg: infer I) => void ? I : never;
