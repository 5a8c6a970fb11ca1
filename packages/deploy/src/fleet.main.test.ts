import { missingPrerequisites } from "./fleet.main";

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
