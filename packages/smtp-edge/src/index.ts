export { createSmtpEdge, type SmtpEdge } from "./smtp-edge";
export type { SmtpEdgeDeps, AcceptedRecipient } from "./deps";
export { REPLY } from "./smtp-reply";
export { AcceptLedger } from "./accept-ledger";
export { type DiskGuard, hasRoomFor } from "./disk-space";
