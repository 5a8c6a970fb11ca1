import { loadConfig } from "@mailstop/config";
import { startSummary } from "./start-summary";

const config = loadConfig({ MAILSTOP_DATA_DIR: "/tmp/x", MAILSTOP_HTTP_PORT: "8025", MAILSTOP_HOST: "127.0.0.1" });
const ports = { receiving: 2525, capture: 2587 };

/** Every one of `parts` is in the summary; a failure lists those missing. */
const expectParts = (text: string, parts: string[]) => expect(parts.filter((part) => !text.includes(part))).toEqual([]);

describe("the summary a person reads when the monolith is ready", () => {
  it("names the API, its reference, the viewer, both SMTP ports, the address form and the inbox-first rule", () => {
    const text = startSummary({ config, smtpPorts: ports, firstStart: { kind: "created", project: {} as never } });
    expectParts(text, [
      "mailstop is ready.",
      "http://localhost:8025   reference: http://localhost:8025/docs",
      "http://localhost:8025/ui/",
      "127.0.0.1:2525   mail to local.<tag>@mailstop.test, once that inbox exists",
      "mail to an address without an inbox is refused",
      "127.0.0.1:2587   stores what your app sends, delivers nothing (AUTH user local)",
      "local, created now",
      "Ctrl-C",
    ]);
  });

  it("on a restart names the existing project and how to get a new key for it", () => {
    const text = startSummary({ config, smtpPorts: ports, firstStart: { kind: "not-first", projects: ["ci", "local"], ignored: [] } });
    expectParts(text, ["local (also: ci), from an earlier start", "mailstop keys create --project local", "local.<tag>@mailstop.test"]);
  });

  it("without a project says how to make one, and shows a wildcard bind as localhost", () => {
    const text = startSummary({ config: loadConfig({ MAILSTOP_DATA_DIR: "/tmp/x", MAILSTOP_HOST: "0.0.0.0" }), smtpPorts: ports, firstStart: { kind: "left-to-operator", ignored: [] } });
    expectParts(text, ["none yet: create one with POST /admin/v1/bootstrap", "localhost:2525   mail to <project_key>.<tag>@mailstop.test"]);
  });
});
