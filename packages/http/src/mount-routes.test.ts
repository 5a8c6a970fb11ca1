import express from "express";
import { buildValidators, listOperations, publicDocument } from "@mailstop/openapi";
import type { Db } from "@mailstop/db";
import { HeldRoutes } from "./held-routes";
import { VALIDATOR_WARM_UP_DELAY_MS, mountRoutes } from "./mount-routes";
import type { RouteDefinition } from "./route";

describe("mountRoutes", () => {
  afterEach(() => jest.useRealTimers());

  it("compiles no route's validator while mounting (issue 34: they were ~0.4 s of start-up), then each in the background once start-up is past", () => {
    jest.useFakeTimers();
    const document = publicDocument();
    const validators = buildValidators(document);
    const routes: RouteDefinition[] = [...listOperations(document).values()].map((spec) => ({
      operationId: spec.operationId,
      access: spec.scope === undefined ? "none" : "api-key",
      handle: async () => undefined,
    }));
    const prepare = [...validators.values()].map((validator) => jest.spyOn(validator, "prepare"));
    mountRoutes(express.Router(), { document, routes }, { db: {} as Db, keys: { find: async () => null } as never, region: "us", adminToken: null, rateLimits: null }, new HeldRoutes([], () => undefined));
    expect(routes.length).toBeGreaterThan(30);
    for (const spy of prepare) expect(spy).not.toHaveBeenCalled();

    jest.advanceTimersByTime(VALIDATOR_WARM_UP_DELAY_MS - 1);
    for (const spy of prepare) expect(spy).not.toHaveBeenCalled();
    // Then one per turn of the event loop.
    jest.advanceTimersByTime(1);
    expect(prepare.filter((spy) => spy.mock.calls.length > 0)).toHaveLength(1);
    jest.runAllTimers();
    for (const spy of prepare) expect(spy).toHaveBeenCalledTimes(1);
  });
});
