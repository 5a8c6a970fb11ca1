export { startTestServer, freePort, uniqueProjectKey, uniqueTag, uniqueRunId, uniqueDomain, TEST_ADMIN_TOKEN, type TestServer, type TestProject } from "./test-server";
export { rawRequest, expectError } from "./http";
export { createFreshDatabase, dropDatabase } from "./databases";
export { runDatabaseUrl, runServerUrl, withDatabase } from "./engines";
export { insertMessageRows } from "./messages";
export { startTestS3, type TestS3 } from "./s3";
