import { EDGE_ROUTES, LONG_LIVED_TIMEOUT_S } from "./edge-routes";
import { renderComposeServer, renderLocations, renderStandaloneNginx } from "./nginx-config";

/** The body of the location block for `selector` in the rendered locations file. */
function locationBody(conf: string, selector: string): string {
  const start = conf.indexOf(`location ${selector} {`);
  if (start < 0) throw new Error(`no location ${selector}`);
  return conf.slice(start, conf.indexOf("}", start));
}

describe("the nginx locations", () => {
  const conf = renderLocations();

  it.each(EDGE_ROUTES.filter((r) => r.longLived))("$path: long timeouts, nothing buffered, X-Accel-Buffering ignored", (route) => {
    const body = locationBody(conf, route.match === "exact" ? `= ${route.path}` : route.path);
    expect(body).toContain(`proxy_pass http://mailstop_${route.upstream};`);
    for (const directive of ["proxy_read_timeout", "proxy_send_timeout"]) {
      const seconds = Number(new RegExp(`${directive} (\\d+)s;`).exec(body)?.[1]);
      expect(seconds).toBe(LONG_LIVED_TIMEOUT_S);
      expect(seconds).toBeGreaterThan(285);
    }
    for (const line of ["proxy_buffering off;", "proxy_request_buffering off;", "proxy_cache off;", "gzip off;", "proxy_ignore_headers X-Accel-Buffering;"]) {
      expect(body).toContain(line);
    }
  });

  it("speaks HTTP/1.1 with keep-alive to every upstream", () => {
    expect(conf).toContain("proxy_http_version 1.1;");
    expect(conf).toContain('proxy_set_header Connection "";');
    expect(renderComposeServer()).toMatch(/upstream mailstop_waiter \{\n {4}server waiter:8025;\n {4}keepalive \d+;/);
  });

  it("sends everything else to the api with ordinary timeouts", () => {
    const body = locationBody(conf, "/");
    expect(body).toContain("proxy_pass http://mailstop_api;");
    expect(body).not.toContain("proxy_buffering off;");
  });
});

describe("the standalone nginx.conf of startFleet", () => {
  const conf = renderStandaloneNginx({
    prefix: "/tmp/fleet-x/nginx",
    locations: "/repo/infra/nginx/mailstop-locations.conf",
    listen: { host: "127.0.0.1", port: 4100 },
    upstreams: { api: ["127.0.0.1:4101"], waiter: ["127.0.0.1:4102", "127.0.0.1:4103"] },
  });

  it("writes nothing outside its prefix and includes the generated locations", () => {
    const paths = [...conf.matchAll(/\s(\/[^\s;]+);/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) expect(path.startsWith("/tmp/fleet-x/nginx/") || path === "/repo/infra/nginx/mailstop-locations.conf").toBe(true);
    expect(conf).toContain("include /repo/infra/nginx/mailstop-locations.conf;");
  });

  it("listens on loopback and balances over every instance", () => {
    expect(conf).toContain("listen 127.0.0.1:4100;");
    expect(conf).toMatch(/upstream mailstop_waiter \{\n\s+server 127\.0\.0\.1:4102;\n\s+server 127\.0\.0\.1:4103;/);
    expect(conf).not.toContain("user ");
  });
});
