export { type MailstopApi, restApi, mailstopApi, PREVIEW_CHARS } from "./api";
export { createMcpServer, registerTools, DEFAULT_WAIT_MS } from "./tools";
export { serveStdio } from "./stdio";
export { handleMcpRequest } from "./http";
