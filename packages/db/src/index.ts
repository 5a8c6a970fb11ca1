export { createDatabase, ensureDatabaseExists, inTransaction, isReachable, migrateToLatest, withTransactionLock, type Db, type DatabaseOptions } from "./database";
export { isUniqueViolation } from "./errors";
export type { Database, Labels, MessageAddress, MessageLink, MessageParts } from "./tables";
export * from "./repositories/tenancy.repository";
export * from "./repositories/credential.repository";
export * from "./repositories/domain.repository";
export * from "./repositories/inbox.repository";
export * from "./repositories/delivery.repository";
export * from "./repositories/message.repository";
