import { randomBytes } from "node:crypto";
export { startTestServer, freePort, uniqueProjectKey, uniqueTag, uniqueRunId, uniqueDomain, TEST_ADMIN_TOKEN, TEST_RATE_LIMITS, TEST_SECRETS_KEY, type TestServer, type TestProject } from "./test-server";
export { rawRequest, keyRequest, expectError } from "./http";
export { createFreshDatabase, dropDatabase } from "./databases";
export { useOwnDatabase } from "./use-own-database";
export { runDatabaseUrl, runRedisPrefix, runRedisUrl, runServerUrl, withDatabase } from "./engines";
import { runRedisPrefix } from "./engines";
export { insertMessageRows } from "./messages";
export { startTestS3, type TestS3 } from "./s3";


/** A Redis key prefix (BullMQ queues, pub/sub channels) no other test uses, inside this run's prefix. */
export const uniqueRedisPrefix = () => `${runRedisPrefix()}-${randomBytes(5).toString("hex")}`;
export { SmtpDialogue, toldBeforeClose, defaultSmtpTransport, sendOneRaw, smtpTransport, eventually, type SmtpResponse } from "./smtp";
export { startTestRedis, type TestRedis } from "./redis";
export { copiesOf } from "./copies";
export { startJsonLineChild, type JsonLineChild } from "./json-line-child";
export { TestEventStream, type StreamFrame } from "./event-stream";
export { testWorld, TEST_WORLD_ENV, type TestWorld } from "./world";
export { startTcpProxy, type TcpProxy } from "./tcp-proxy";
export { RUN_DNS_ENV, publishSendingDomain, startTestDns, testDkimKey, type TestDkimKey, type TestDns, type DnsZone } from "./dns";
export { useTestServer, type SuiteServer, type SuiteServerOptions } from "./use-test-server";
export { useWebhookTestServer, type WebhookSuite } from "./use-webhook-test-server";
export { describeWithFleet, startTestFleet } from "./fleet-world";
export { startTestReceiver, type TestReceiver, type ReceivedRequest, type ReceiverAnswer } from "./webhook-receiver";
export { parseMetrics, scrapeMetrics, metricValue, type MetricFamily } from "./metrics";
export { launchChromium, CHROMIUM_PATH, CHROMIUM_ARGS, type Browser, type BrowserContext, type Frame, type Page } from "./browser";
export { describeOnSmallDisk, type SmallDisk } from "./small-disk";
