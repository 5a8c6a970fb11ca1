import { EDGE_ROUTES, LONG_LIVED_TIMEOUT_S } from "./edge-routes";
import { ingressObjects } from "./ingress";
import { CLIENT_MAX_BODY } from "./edge-errors";
import { EDGE_ERRORS_NAME } from "./edge-errors-backend";

const ANNOTATION = "nginx.ingress.kubernetes.io";

describe("the generated Ingress", () => {
  const objects = ingressObjects() as any[];

  it("has every route of the table once, on its service", () => {
    const paths = objects.flatMap((o) => o.spec.rules[0].http.paths);
    expect(paths).toHaveLength(EDGE_ROUTES.length);
    for (const route of EDGE_ROUTES) {
      expect(paths).toContainEqual({
        path: route.path,
        pathType: route.match === "exact" ? "Exact" : "Prefix",
        backend: { service: { name: `mailstop-${route.upstream}`, port: { name: "http" } } },
      });
    }
  });

  it("lets every body the API accepts through, so the API answers over-large ones in its envelope", () => {
    for (const object of objects) expect(object.metadata.annotations[`${ANNOTATION}/proxy-body-size`]).toBe(CLIENT_MAX_BODY);
  });

  it("sends what the edge answers itself to the envelope backend, and lets the api's own 503 through", () => {
    for (const object of objects) {
      expect(object.metadata.annotations).toMatchObject({ [`${ANNOTATION}/default-backend`]: EDGE_ERRORS_NAME, [`${ANNOTATION}/custom-http-errors`]: "413,502,504" });
    }
  });

  it("gives the long-lived routes long timeouts and no buffering", () => {
    const longLived = objects.find((o) => o.spec.rules[0].http.paths.some((p: any) => p.path === "/v1/messages/wait"));
    expect(longLived.metadata.annotations).toEqual({
      [`${ANNOTATION}/proxy-read-timeout`]: String(LONG_LIVED_TIMEOUT_S),
      [`${ANNOTATION}/proxy-send-timeout`]: String(LONG_LIVED_TIMEOUT_S),
      [`${ANNOTATION}/proxy-body-size`]: CLIENT_MAX_BODY,
      [`${ANNOTATION}/default-backend`]: EDGE_ERRORS_NAME,
      [`${ANNOTATION}/custom-http-errors`]: "413,502,504",
      [`${ANNOTATION}/proxy-buffering`]: "off",
      [`${ANNOTATION}/proxy-request-buffering`]: "off",
      [`${ANNOTATION}/proxy-http-version`]: "1.1",
    });
    expect(longLived.spec.rules[0].http.paths.map((p: any) => p.path).sort()).toEqual(EDGE_ROUTES.filter((r) => r.longLived).map((r) => r.path).sort());
  });
});
