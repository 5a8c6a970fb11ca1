import { once } from "node:events";
import { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createHttpServer } from "./create-http-server";

describe("createHttpServer", () => {
  it("hands express requests and responses already built on its prototypes, which work as Node's own", async () => {
    const app = express();
    app.use(express.json());
    app.post("/echo/:id", (req, res) => void res.status(201).json({ id: req.params.id, body: req.body, app: req.app === app }));
    const server = createHttpServer(app, null).listen(0, "127.0.0.1");
    await once(server, "listening");
    const born: boolean[] = [];
    // Runs before express sees the request: its prototype swap must have nothing to change.
    server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
      born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
      born.push(req instanceof IncomingMessage && res instanceof ServerResponse);
    });
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/echo/abc`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ id: "abc", body: { a: 1 }, app: true });
      expect(born).toEqual([true, true]);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
