import { redactUrl } from "./redact-url";

describe("redactUrl", () => {
  it.each([
    ["https://user:secret@hooks.example/in?token=abc&v=2", "https://***:***@hooks.example/in?token=***&v=***"],
    ["http://user:secret@127.0.0.1:8080/hook?token=abc", "http://***:***@127.0.0.1:8080/hook?token=***"],
    ["https://user@hooks.example/in", "https://***@hooks.example/in"],
    ["https://:secret@hooks.example/in", "https://:***@hooks.example/in"],
    ["http://[::1]:9/a/b/", "http://[::1]:9/a/b/"],
    ["https://hooks.example/services/T1/B2", "https://hooks.example/services/T1/B2"],
    ["https://hooks.example/in?api%20key=a%20b&empty=", "https://hooks.example/in?api%20key=***&empty=***"],
    ["https://hooks.example/in?sk_live_abc&a=1&&b", "https://hooks.example/in?***&a=***&&***"],
    ["https://hooks.example/in#access_token=abc", "https://hooks.example/in#***"],
  ])("%s is shown as %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it("takes a URL object and leaves it as it was", () => {
    const url = new URL("https://user:secret@hooks.example/in?token=abc");
    expect(redactUrl(url)).toBe("https://***:***@hooks.example/in?token=***");
    expect(url.href).toBe("https://user:secret@hooks.example/in?token=abc");
  });

  it.each(["not a url", "user:secret at hooks", "mailto:someone@example.com", "file:///etc/passwd"])("shows %p, not a URL or one with no host, as *** (nothing in it can be told safe)", (text) => {
    expect(redactUrl(text)).toBe("***");
  });
});
