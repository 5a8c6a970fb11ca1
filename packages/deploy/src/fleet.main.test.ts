import { fleetListen, missingPrerequisites } from "./fleet.main";

describe("pnpm fleet's prerequisites", () => {
  it("names every missing engine setting and a missing nginx, without touching the network", async () => {
    expect(await missingPrerequisites({ DATABASE_URL: "", REDIS_URL: undefined }, false)).toEqual([
      "DATABASE_URL is not set (PostgreSQL)",
      "REDIS_URL is not set (Redis)",
      "nginx is not installed (apt-get install nginx-light)",
    ]);
    expect(await missingPrerequisites({ DATABASE_URL: "not a url", REDIS_URL: "::" }, true)).toEqual(["DATABASE_URL is not a URL", "REDIS_URL is not a URL"]);
  });
});

describe("where pnpm fleet listens", () => {
  it("on the ports pnpm start listens on by default", () => {
    expect(fleetListen({})).toEqual({ http: 8025, smtp: 2525, capture: 2587 });
  });

  it("on the ports of MAILSTOP_HTTP_PORT, MAILSTOP_SMTP_PORT and MAILSTOP_CAPTURE_PORT", () => {
    expect(fleetListen({ MAILSTOP_HTTP_PORT: "18025", MAILSTOP_SMTP_PORT: "12525", MAILSTOP_CAPTURE_PORT: "" })).toEqual({ http: 18025, smtp: 12525, capture: 2587 });
  });

  it("refuses a setting that is not a port, naming each", () => {
    expect(() => fleetListen({ MAILSTOP_HTTP_PORT: "80a", MAILSTOP_CAPTURE_PORT: "70000" })).toThrow(
      "MAILSTOP_HTTP_PORT=80a is not a port (1 to 65535); MAILSTOP_CAPTURE_PORT=70000 is not a port (1 to 65535)",
    );
  });
});
