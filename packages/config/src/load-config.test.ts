import { ConfigError, loadConfig } from "./load-config";
import { renderConfigurationReference } from "./reference";

function errorLines(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.lines;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      http: { port: 8025, publicUrl: "http://localhost:8025" },
      region: "us",
      environment: "local",
      brand: "mailstop",
      sharedDomain: "mailstop.test",
      mxHost: "mx.mailstop.test",
      captureHost: "capture.mailstop.test",
      adminToken: null,
      databaseUrl: null,
      redisUrl: null,
      s3: null,
      dataDir: "./.mailstop",
      smtp: { port: 2525, capturePort: 2587, capturePublicPort: 2587, maxMessageBytes: 26214400, simDelayMs: 5000 },
      stream: { heartbeatSeconds: 15, tokenTtlSeconds: 300, maxDurationSeconds: 3600 },
      rateLimits: { enabled: true, read: 50, write: 10 },
      keyCache: { entries: 10_000 },
      metrics: { enabled: true },
    });
  });

  it("keeps MAILSTOP_KEY_CACHE_ENTRIES API keys per process, none when MAILSTOP_KEY_CACHE is off", () => {
    expect(loadConfig({ MAILSTOP_KEY_CACHE_ENTRIES: "50" }).keyCache).toEqual({ entries: 50 });
    expect(loadConfig({ MAILSTOP_KEY_CACHE: "off", MAILSTOP_KEY_CACHE_ENTRIES: "50" }).keyCache).toEqual({ entries: 0 });
    expect(errorLines({ MAILSTOP_KEY_CACHE_ENTRIES: "0" })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_KEY_CACHE_ENTRIES/)]);
  });

  it("records metrics unless MAILSTOP_METRICS is off, refusing any other value", () => {
    expect(loadConfig({ MAILSTOP_METRICS: "on" }).metrics).toEqual({ enabled: true });
    expect(loadConfig({ MAILSTOP_METRICS: "off" }).metrics).toEqual({ enabled: false });
    expect(errorLines({ MAILSTOP_METRICS: "false" })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_METRICS/)]);
  });

  it("takes per-key rate limits per class, refusing anything but a positive whole number", () => {
    expect(loadConfig({ MAILSTOP_RATE_LIMIT_READ: "200", MAILSTOP_RATE_LIMIT_WRITE: "3" }).rateLimits).toEqual({ enabled: true, read: 200, write: 3 });
    expect(loadConfig({ MAILSTOP_RATE_LIMITS: "off" }).rateLimits.enabled).toBe(false);
    expect(errorLines({ MAILSTOP_RATE_LIMITS: "no" })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_RATE_LIMITS/)]);
    expect(errorLines({ MAILSTOP_RATE_LIMIT_READ: "0", MAILSTOP_RATE_LIMIT_WRITE: "1.5" })).toEqual([
      expect.stringMatching(/^invalid configuration: MAILSTOP_RATE_LIMIT_READ must be a positive integer/),
      expect.stringMatching(/^invalid configuration: MAILSTOP_RATE_LIMIT_WRITE must be a positive integer/),
    ]);
  });

  it("publishes the capture relay on its own port unless a published port is set", () => {
    expect(loadConfig({ MAILSTOP_CAPTURE_PORT: "2600" }).smtp).toMatchObject({ capturePort: 2600, capturePublicPort: 2600 });
    expect(loadConfig({ MAILSTOP_CAPTURE_PORT: "2600", MAILSTOP_CAPTURE_PUBLIC_PORT: "587" }).smtp).toMatchObject({ capturePort: 2600, capturePublicPort: 587 });
  });

  it("derives hosts from the shared domain and the public URL from the port", () => {
    const config = loadConfig({ MAILSTOP_SHARED_DOMAIN: "Inbox.Example.com", MAILSTOP_HTTP_PORT: "9000" });
    expect(config.mxHost).toBe("mx.inbox.example.com");
    expect(config.captureHost).toBe("capture.inbox.example.com");
    expect(config.http.publicUrl).toBe("http://localhost:9000");
    expect(loadConfig({ MAILSTOP_PUBLIC_URL: "https://api.example.com/" }).http.publicUrl).toBe("https://api.example.com");
  });

  it("gives clients with SMTP credentials a capture host they can reach: MAILSTOP_CAPTURE_HOST, else the listener's address", () => {
    expect(loadConfig({}).captureClientHost).toBe("127.0.0.1");
    expect(loadConfig({ MAILSTOP_HOST: "0.0.0.0" }).captureClientHost).toBe("localhost");
    expect(loadConfig({ MAILSTOP_HOST: "::" }).captureClientHost).toBe("localhost");
    expect(loadConfig({ MAILSTOP_HOST: "0.0.0.0", MAILSTOP_CAPTURE_HOST: "relay.example.net" })).toMatchObject({ captureHost: "relay.example.net", captureClientHost: "relay.example.net" });
  });

  it("takes a fixed first-start SMTP password of 16 to 128 visible ASCII characters, never echoing a refused one", () => {
    expect(loadConfig({}).bootstrapSmtpPassword).toBeNull();
    expect(loadConfig({ MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: "ci-relay-password-1" }).bootstrapSmtpPassword).toBe("ci-relay-password-1");
    for (const bad of ["short-secret", "has a space in it ok", "x".repeat(129)]) {
      const lines = errorLines({ MAILSTOP_BOOTSTRAP_SMTP_PASSWORD: bad });
      expect(lines).toEqual([expect.stringContaining("MAILSTOP_BOOTSTRAP_SMTP_PASSWORD")]);
      expect(lines[0]).not.toContain(bad);
    }
  });

  it("runs 32 parse jobs per parser process unless MAILSTOP_PARSER_CONCURRENCY says otherwise", () => {
    expect(loadConfig({}).parserConcurrency).toBe(32);
    expect(loadConfig({ MAILSTOP_PARSER_CONCURRENCY: "2" }).parserConcurrency).toBe(2);
    expect(errorLines({ MAILSTOP_PARSER_CONCURRENCY: "0" })).toEqual([expect.stringContaining("MAILSTOP_PARSER_CONCURRENCY")]);
  });

  it("computes the checks MAILSTOP_CHECKS names: both by default, none, or one; refuses any other", () => {
    expect(loadConfig({}).checks).toEqual(["authentication", "html"]);
    expect(loadConfig({ MAILSTOP_CHECKS: "none" }).checks).toEqual([]);
    expect(loadConfig({ MAILSTOP_CHECKS: "html" }).checks).toEqual(["html"]);
    expect(loadConfig({ MAILSTOP_CHECKS: "html, authentication,html" }).checks).toEqual(["html", "authentication"]);
    expect(errorLines({ MAILSTOP_CHECKS: "spam" })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_CHECKS must be a comma-separated list of authentication, html, or none, got "spam"/)]);
  });

  it("asks spamd at MAILSTOP_SPAMD (host:port, an IPv6 address in brackets) only when it is set", () => {
    expect(loadConfig({}).spamd).toBeNull();
    expect(loadConfig({ MAILSTOP_SPAMD: "spamassassin:783" }).spamd).toEqual({ host: "spamassassin", port: 783 });
    expect(loadConfig({ MAILSTOP_SPAMD: "[::1]:7830" }).spamd).toEqual({ host: "::1", port: 7830 });
    for (const value of ["spamassassin", "127.0.0.1:0", "127.0.0.1:70000", "a:1,b:2"]) {
      expect(errorLines({ MAILSTOP_SPAMD: value })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_SPAMD must be host:port/)]);
    }
  });

  it("sweeps orphaned raw objects hourly unless MAILSTOP_ORPHAN_SWEEP_INTERVAL_S says otherwise", () => {
    expect(loadConfig({}).orphanSweepIntervalSeconds).toBe(3_600);
    expect(loadConfig({ MAILSTOP_ORPHAN_SWEEP_INTERVAL_S: "5" }).orphanSweepIntervalSeconds).toBe(5);
    expect(errorLines({ MAILSTOP_ORPHAN_SWEEP_INTERVAL_S: "0" })).toEqual([expect.stringMatching(/^invalid configuration: MAILSTOP_ORPHAN_SWEEP_INTERVAL_S/)]);
  });

  it("counts an empty value as unset", () => {
    expect(loadConfig({ MAILSTOP_ADMIN_TOKEN: "", DATABASE_URL: "" })).toMatchObject({ adminToken: null, databaseUrl: null });
  });

  it("reports every invalid variable at once, one line each, naming it", () => {
    const lines = errorLines({
      MAILSTOP_HTTP_PORT: "abc",
      MAILSTOP_REGION: "mars",
      MAILSTOP_ADMIN_TOKEN: "short",
      DATABASE_URL: "mysql://x",
      MAILSTOP_MAX_MESSAGE_BYTES: "-1",
      MAILSTOP_BOOTSTRAP_API_KEY: "sk_nope",
    });
    expect(lines).toHaveLength(6);
    for (const name of ["MAILSTOP_HTTP_PORT", "MAILSTOP_REGION", "MAILSTOP_ADMIN_TOKEN", "DATABASE_URL", "MAILSTOP_MAX_MESSAGE_BYTES", "MAILSTOP_BOOTSTRAP_API_KEY"]) {
      expect(lines.filter((line) => line.includes(name))).toHaveLength(1);
    }
  });

  it("never echoes a secret in its error line", () => {
    const [line] = errorLines({ MAILSTOP_ADMIN_TOKEN: "tooshort-secret" });
    expect(line).not.toContain("tooshort-secret");
  });

  it("needs MAILSTOP_TLS_CERT and MAILSTOP_TLS_KEY together", () => {
    expect(errorLines({ MAILSTOP_TLS_CERT: "/etc/cert.pem" })).toEqual(["invalid configuration: MAILSTOP_TLS_KEY must be set together with MAILSTOP_TLS_CERT"]);
    expect(loadConfig({ MAILSTOP_TLS_CERT: "/c.pem", MAILSTOP_TLS_KEY: "/k.pem" }).smtp.tls).toEqual({ certFile: "/c.pem", keyFile: "/k.pem" });
    expect(loadConfig({}).smtp.tls).toBeNull();
  });

  it("accepts a 32-character admin token and a well-formed bootstrap key", () => {
    const key = `is_test_${"a".repeat(43)}`;
    const config = loadConfig({ MAILSTOP_ADMIN_TOKEN: "x".repeat(32), MAILSTOP_BOOTSTRAP_API_KEY: key });
    expect(config.adminToken).toBe("x".repeat(32));
    expect(config.bootstrapApiKey).toBe(key);
  });
});

describe("the configuration reference", () => {
  it("documents every variable an operator sets", () => {
    const reference = renderConfigurationReference();
    for (const name of [
      "MAILSTOP_HTTP_PORT", "MAILSTOP_SMTP_PORT", "MAILSTOP_CAPTURE_PORT", "MAILSTOP_HOST", "MAILSTOP_PUBLIC_URL", "MAILSTOP_SHARED_DOMAIN",
      "MAILSTOP_MX_HOST", "MAILSTOP_CAPTURE_HOST", "MAILSTOP_REGION", "MAILSTOP_ENVIRONMENT", "MAILSTOP_ADMIN_TOKEN", "MAILSTOP_DATA_DIR",
      "DATABASE_URL", "REDIS_URL", "S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET", "S3_REGION", "MAILSTOP_MAX_MESSAGE_BYTES",
      "MAILSTOP_SIM_DELAY_MS", "MAILSTOP_HEARTBEAT_S", "MAILSTOP_STREAM_TOKEN_TTL_S", "MAILSTOP_STREAM_MAX_DURATION_S", "MAILSTOP_DNS_SERVERS",
      "MAILSTOP_LOG_LEVEL", "MAILSTOP_BOOTSTRAP_API_KEY", "MAILSTOP_SPAMD",
    ]) {
      expect(reference).toContain(`| \`${name}\` |`);
    }
  });
});
