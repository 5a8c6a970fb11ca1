export * from "./ids";
export * from "./errors";
export * from "./grammar";
export * from "./address";
export * from "./scopes";
export * from "./secrets";
