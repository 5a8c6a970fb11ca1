/**
 * The comparison SMTP servers, run as their own process:
 *   ceiling  npm smtp-server that reads DATA and discards it: the most any Node SMTP server
 *            on this machine can accept.
 *   floor    the same, writing each message to its own file and fsync-ing it before the 250:
 *            the least a server that promises durability must pay.
 * Both greet at once (see PromptGreetingServer) and skip the reverse DNS lookup, as mailstop's
 * edge does, so the comparison is of what happens after the greeting. `GET /count` on the
 * HTTP port says how many messages were accepted (their "visible" count).
 *
 * Usage: sink-server.ts <ceiling|floor> <smtp port> <http port> [directory]
 */
import { open } from "node:fs/promises";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { SMTPConnection } from "smtp-server/lib/smtp-connection.js";

const [mode, smtpPort, httpPort, directory] = process.argv.slice(2);
if ((mode !== "ceiling" && mode !== "floor") || !smtpPort || !httpPort || (mode === "floor" && !directory)) {
  console.error("usage: sink-server.ts <ceiling|floor> <smtp port> <http port> [directory]");
  process.exit(2);
}

/**
 * smtp-server without its hard-coded 100 ms wait before every greeting (the same change as
 * packages/smtp-edge/src/prompt-greeting.ts; copied so the comparison server does not move when
 * mailstop's code does).
 */
class PromptGreetingServer extends SMTPServer {
  override connect(socket: Socket, socketOptions?: ConstructorParameters<typeof SMTPConnection>[2]): void {
    const connection = new SMTPConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on("error", (error: Error) => this._onError(error));
    connection.on("connect", (data) => this._onClientConnect(data));
    connection._setListeners(() => connection.connectionReady());
  }
}

let count = 0;
let sequence = 0;

const server = new PromptGreetingServer({
  disableReverseLookup: true,
  disabledCommands: ["AUTH", "STARTTLS"],
  logger: false,
  size: 26_214_400,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => {
      if (mode === "floor") chunks.push(chunk);
    });
    stream.on("end", () => {
      if (mode === "ceiling") {
        count += 1;
        return callback(null, "Ok: discarded");
      }
      const file = join(directory!, `${process.pid}-${++sequence}.eml`);
      (async () => {
        const handle = await open(file, "w");
        try {
          await handle.writeFile(Buffer.concat(chunks));
          await handle.sync();
        } finally {
          await handle.close();
        }
      })().then(
        () => {
          count += 1;
          callback(null, "Ok: stored");
        },
        (error: Error) => callback(Object.assign(error, { responseCode: 451 })),
      );
    });
  },
});
server.listen(Number(smtpPort), "127.0.0.1");

createServer((request, response) => {
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify({ count }));
}).listen(Number(httpPort), "127.0.0.1");

process.on("SIGTERM", () => process.exit(0));
