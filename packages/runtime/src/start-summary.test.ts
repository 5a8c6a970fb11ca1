import { loadConfig } from "@mailstop/config";
import { startSummary } from "./start-summary";

const config = loadConfig({ MAILSTOP_DATA_DIR: "/tmp/x", MAILSTOP_HTTP_PORT: "8025", MAILSTOP_HOST: "127.0.0.1" });
const ports = { receiving: 2525, capture: 2587 };

describe("the summary a person reads when the monolith is ready", () => {
  it("names the API, its reference, the viewer, both SMTP ports, the address form and the inbox-first rule", () => {
    const text = startSummary({ config, smtpPorts: ports, firstStart: { kind: "created", project: {} as never } });
    expect(text).toContain("mailstop is ready.");
    expect(text).toContain("http://localhost:8025   reference: http://localhost:8025/docs");
    expect(text).toContain("http://localhost:8025/ui/");
    expect(text).toContain("127.0.0.1:2525   mail to local.<tag>@mailstop.test, once that inbox exists");
    expect(text).toContain("mail to an address without an inbox is refused");
    expect(text).toContain("127.0.0.1:2587   stores what your app sends, delivers nothing (AUTH user local)");
    expect(text).toContain("local, created now");
    expect(text).toContain("Ctrl-C");
  });

  it("on a restart names the existing project and how to get a new key for it", () => {
    const text = startSummary({ config, smtpPorts: ports, firstStart: { kind: "not-first", projects: ["ci", "local"], ignored: [] } });
    expect(text).toContain("local (also: ci), from an earlier start");
    expect(text).toContain("mailstop keys create --project local");
    expect(text).toContain("local.<tag>@mailstop.test");
  });

  it("without a project says how to make one, and shows a wildcard bind as localhost", () => {
    const text = startSummary({ config: loadConfig({ MAILSTOP_DATA_DIR: "/tmp/x", MAILSTOP_HOST: "0.0.0.0" }), smtpPorts: ports, firstStart: { kind: "left-to-operator", ignored: [] } });
    expect(text).toContain("none yet: create one with POST /admin/v1/bootstrap");
    expect(text).toContain("localhost:2525   mail to <project_key>.<tag>@mailstop.test");
  });
});
