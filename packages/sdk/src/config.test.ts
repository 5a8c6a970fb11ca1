import { resolveOptions } from "./config";

describe("resolveOptions", () => {
  it("defaults to http://localhost:8025 without a key", () => {
    expect(resolveOptions({}, {})).toMatchObject({ baseUrl: "http://localhost:8025", apiKey: undefined, maxAttempts: 3 });
  });

  it("reads MAILSTOP_API_URL and MAILSTOP_API_KEY, ignoring empty values", () => {
    expect(resolveOptions({}, { MAILSTOP_API_URL: "https://mail.example.com/", MAILSTOP_API_KEY: "is_test_a" })).toMatchObject({ baseUrl: "https://mail.example.com", apiKey: "is_test_a" });
    expect(resolveOptions({}, { MAILSTOP_API_URL: " ", MAILSTOP_API_KEY: "" })).toMatchObject({ baseUrl: "http://localhost:8025", apiKey: undefined });
  });

  it("lets the options override the environment", () => {
    expect(resolveOptions({ baseUrl: "http://127.0.0.1:9000", apiKey: "is_live_b" }, { MAILSTOP_API_URL: "https://x.example", MAILSTOP_API_KEY: "is_test_a" })).toMatchObject({
      baseUrl: "http://127.0.0.1:9000",
      apiKey: "is_live_b",
    });
  });

  it("refuses a maxAttempts below 1", () => {
    expect(() => resolveOptions({ maxAttempts: 0 }, {})).toThrow(RangeError);
  });
});
