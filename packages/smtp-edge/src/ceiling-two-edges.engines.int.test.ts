import { createDatabase, type Db } from "@mailstop/db";
import { TEST_ADMIN_TOKEN, type TestS3, describeWithFleet, rawRequest, startTestFleet, uniqueProjectKey, uniqueTag } from "@mailstop/testkit";
import { raceTheCeiling, storedAfterRace } from "./ceiling-race.fixture";

// The split fleet with two smtp-edge processes on one PostgreSQL: the reservation is the only
// thing they share, so a ceiling holds only if it is decided in the database.
describeWithFleet("the ingest ceiling across two smtp-edge processes", () => {
  let fleet: Awaited<ReturnType<typeof startTestFleet>>["fleet"];
  let s3: TestS3;
  let db: Db;

  beforeAll(async () => {
    const started = await startTestFleet({}, { replicas: { "smtp-edge": 2 } });
    ({ fleet, s3 } = started);
    db = createDatabase(started.env.DATABASE_URL!, { maxConnections: 2 });
  }, 180_000);

  afterAll(async () => {
    await db?.destroy();
    await fleet?.stop();
    await s3?.stop();
  }, 60_000);

  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" };

  it("50 senders split over both edges and a 150-recipient capture transaction against ceiling 10 store exactly 10", async () => {
    const edges = fleet.processes.filter((p) => p.service === "smtp-edge").map((p) => p.smtp!);
    expect(edges).toHaveLength(2);
    const bootstrap = await rawRequest(fleet.url, "POST", "/admin/v1/bootstrap", { headers: admin, body: JSON.stringify({ project_key: uniqueProjectKey("edges") }) });
    expect(bootstrap.status).toBe(201);
    const { project_id: projectId, api_key: apiKey, smtp } = bootstrap.json;
    const limited = await rawRequest(fleet.url, "PATCH", `/admin/v1/projects/${projectId}`, { headers: admin, body: JSON.stringify({ limits: { ingest_ceiling: 10 } }) });
    expect(limited.status).toBe(200);
    const inbox = await rawRequest(fleet.url, "POST", "/v1/inboxes", {
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tag: uniqueTag("edges") }),
    });
    expect(inbox.status).toBe(201);

    const outcome = await raceTheCeiling({
      receiving: edges.map((edge) => edge.receiving),
      capture: edges[1]!.capture,
      inboxAddress: inbox.json.address,
      credential: { username: smtp.username, password: smtp.password },
    });
    expect(outcome.receivedSubjects.length + outcome.capturedRecipients.length).toBe(10);
    for (const refusal of outcome.refusals) expect(refusal).toEqual({ code: 452, text: expect.stringMatching(/^4\.3\.1 /) });
    expect(await storedAfterRace(db, projectId, outcome)).toEqual({ copies: 10, metered: 10 });
  }, 120_000);
});
