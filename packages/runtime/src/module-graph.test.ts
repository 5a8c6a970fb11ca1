import { dependencyOrder } from "./module-graph";

const node = (name: string, needs: string[], provides: string[] = [], optional: string[] = []) => ({ name, needs, provides, optional });
const names = (modules: { name: string }[]) => modules.map((m) => m.name);

describe("dependencyOrder", () => {
  it("starts each module after the providers of what it needs, whatever order it is listed in", () => {
    const server = node("server", ["db", "routes"]);
    const routes = node("routes", ["db"], ["routes"]);
    const db = node("db", [], ["db"]);
    expect(names(dependencyOrder([server, routes, db]))).toEqual(["db", "routes", "server"]);
    expect(names(dependencyOrder([db, routes, server]))).toEqual(["db", "routes", "server"]);
  });

  it("keeps the listed order of modules that need nothing of each other", () => {
    const db = node("db", [], ["db"]);
    expect(names(dependencyOrder([node("b", ["db"]), node("a", ["db"]), db]))).toEqual(["db", "b", "a"]);
  });

  it("starts a module after the provider of what it may use when there is one, and without it otherwise", () => {
    const server = node("server", [], [], ["routes"]);
    expect(names(dependencyOrder([server, node("routes", [], ["routes"])]))).toEqual(["routes", "server"]);
    expect(names(dependencyOrder([server]))).toEqual(["server"]);
  });

  it("refuses a need that no module provides, naming both", () => {
    expect(() => dependencyOrder([node("parser", ["db", "blobs"]), node("database", [], ["db"])], " of target parser")).toThrow(
      "parser needs blobs, which no module of target parser provides",
    );
  });

  it("refuses a name that two modules provide", () => {
    expect(() => dependencyOrder([node("a", [], ["db"]), node("b", [], ["db"])])).toThrow("db is provided by both a and b");
  });

  it("refuses a cycle, naming the modules in it", () => {
    const modules = [node("root", ["x"]), node("a", ["y"], ["x"]), node("b", ["x"], ["y"])];
    expect(() => dependencyOrder(modules, " of target t")).toThrow("module dependency cycle of target t: a -> b -> a");
    expect(() => dependencyOrder([node("self", ["s"], ["s"])])).toThrow("module dependency cycle: self -> self");
  });
});
