/** What a start order is computed from: a module's name and the names it needs, may use and provides. */
export interface ModuleNode {
  readonly name: string;
  readonly needs: readonly string[];
  readonly optional?: readonly string[];
  readonly provides?: readonly string[];
}

/**
 * The start order of `modules`: each after the modules providing what it needs or may use.
 * Modules that need nothing of each other keep their order in `modules`, so the order is
 * fixed (arrays only, never map iteration). Throws, naming the modules, when a need has no
 * provider, a name has two, or the needs form a cycle; `where` ends each message (" of
 * target api").
 */
export function dependencyOrder<Module extends ModuleNode>(modules: readonly Module[], where = ""): Module[] {
  const providers = new Map<string, Module>();
  for (const module of modules) {
    for (const name of module.provides ?? []) {
      const other = providers.get(name);
      if (other !== undefined) throw new Error(`${name} is provided by both ${other.name} and ${module.name}${where}`);
      providers.set(name, module);
    }
  }
  const providersOf = (module: Module): Module[] => [
    ...module.needs.map((name) => {
      const provider = providers.get(name);
      if (provider === undefined) throw new Error(`${module.name} needs ${name}, which no module${where} provides`);
      return provider;
    }),
    ...(module.optional ?? []).flatMap((name) => providers.get(name) ?? []),
  ];

  const order: Module[] = [];
  const visit = (module: Module, path: readonly Module[]): void => {
    if (order.includes(module)) return;
    if (path.includes(module)) {
      const cycle = [...path.slice(path.indexOf(module)), module].map((m) => m.name);
      throw new Error(`module dependency cycle${where}: ${cycle.join(" -> ")}`);
    }
    for (const provider of providersOf(module)) visit(provider, [...path, module]);
    order.push(module);
  };
  for (const module of modules) visit(module, []);
  return order;
}
