export { startTestServer, freePort, uniqueProjectKey, TEST_ADMIN_TOKEN, type TestServer, type TestProject } from "./test-server";
export { rawRequest, expectError } from "./http";
export { createFreshDatabase, dropDatabase } from "./databases";
export { givenDatabaseUrl, runDatabaseUrl, withDatabase } from "./engines";
