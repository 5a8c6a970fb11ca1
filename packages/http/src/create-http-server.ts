import { IncomingMessage, type Server, ServerResponse, createServer } from "node:http";
import type { Express } from "express";
import type { HeldRoutes } from "./held-routes";

/**
 * The HTTP server of an express app, whose requests and responses are constructed on the
 * prototypes express gives them (`app.request`, `app.response`) instead of being handed those
 * on arrival. Call it once per app: it makes subclasses of Node's request and response whose
 * prototypes inherit express's, and makes those the app's `request` and `response`.
 *
 * Express swaps the prototype of every request and response it is given, and V8 (Node 20)
 * gives an object that gains a property after such a swap a hidden class of its own: every
 * request and response then had unique maps and descriptor arrays (about 2 KB a request, held
 * as long as the request is: 10,000 held waits or streams), and every property access on them
 * was megamorphic (`setHeader` alone took 4 % of the CPU of waking 10,000 waits). Born with
 * the prototype, express's swap changes nothing and all requests share their shapes. Classes
 * rather than plain constructor functions: V8 sizes a class instance for the properties its
 * constructors add, where a function that only forwards to Node's leaves them all
 * out of the object, past the limit at which it turns the object into a dictionary.
 *
 * The requests of `held` routes are served by it, never reaching express's router (null for an
 * app without held routes).
 */
export function createHttpServer(app: Express, held: HeldRoutes | null): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  // They now carry express's request and response methods, which the types cannot follow.
  app.request = AppRequest.prototype as unknown as Express["request"];
  app.response = AppResponse.prototype as unknown as Express["response"];
  const options = { IncomingMessage: AppRequest, ServerResponse: AppResponse };
  if (held === null) return createServer(options, app);
  return createServer(options, (req, res) => {
    if (!held.serve(req, res)) app(req, res);
  });
}
