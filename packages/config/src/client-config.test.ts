import { loadClientConfig } from "./client-config";
import { ConfigError } from "./load-config";

describe("loadClientConfig", () => {
  it("defaults the API to http://localhost:8025 and leaves the key unset; an empty value counts as unset", () => {
    expect(loadClientConfig({})).toEqual({ apiUrl: "http://localhost:8025", apiKey: null });
    expect(loadClientConfig({ MAILSTOP_API_URL: "", MAILSTOP_API_KEY: "" })).toEqual({ apiUrl: "http://localhost:8025", apiKey: null });
  });

  it("reads MAILSTOP_API_URL without its trailing slash, and MAILSTOP_API_KEY as given", () => {
    expect(loadClientConfig({ MAILSTOP_API_URL: "https://mail.example.com/", MAILSTOP_API_KEY: "is_test_abc" })).toEqual({
      apiUrl: "https://mail.example.com",
      apiKey: "is_test_abc",
    });
  });

  it("refuses a URL that is not http(s), naming the variable", () => {
    expect(() => loadClientConfig({ MAILSTOP_API_URL: "ftp://x" })).toThrow(ConfigError);
    expect(() => loadClientConfig({ MAILSTOP_API_URL: "ftp://x" })).toThrow(/MAILSTOP_API_URL/);
  });
});
