import { once } from "node:events";
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";
import { type SmtpReply, SmtpReplyReader, readReplies } from "./smtp-replies";

describe("SmtpReplyReader", () => {
  it("joins continuation lines, splits pipelined replies, and waits for a line cut between chunks", () => {
    const reader = new SmtpReplyReader();
    expect(reader.push("250-mx.example\r\n250-PIPELINING\r\n250 SIZE 100\r\n250 2.1.0 Ok\r\n35")).toEqual([
      { code: 250, text: "mx.example\nPIPELINING\nSIZE 100" },
      { code: 250, text: "2.1.0 Ok" },
    ]);
    expect(reader.push("4 End data")).toEqual([]);
    expect(reader.push(" with <CR><LF>.<CR><LF>\r\n")).toEqual([{ code: 354, text: "End data with <CR><LF>.<CR><LF>" }]);
  });
});

describe("readReplies", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A client connected to a loopback server that runs `serve` on the connection. */
  async function connected(serve: (socket: Socket) => void): Promise<Socket> {
    const server = createServer((socket) => {
      // The client may be destroyed mid-test: a reset here is its doing, not a failure.
      socket.on("error", () => undefined);
      serve(socket);
    }).listen(0, "127.0.0.1");
    servers.push(server);
    await once(server, "listening");
    const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
    await once(client, "connect");
    return client;
  }

  /** Resolves on "close" (events.once would reject on the "error" before it). */
  function closed(socket: Socket): Promise<void> {
    return new Promise((resolve) => socket.once("close", () => resolve()));
  }

  it("hands over pipelined replies in order across chunks, then ends once, without a cause, when the server closes", async () => {
    // The rest goes out only once the client has the greeting, so "250-PIPELINING" is cut between two reads.
    const client = await connected((socket) => {
      socket.write("220 mx.example ready\r\n250-mx.example\r\n25");
      socket.once("data", () => socket.end("0-PIPELINING\r\n250 SIZE 100\r\n250 2.1.0 Ok\r\n"));
    });
    const replies: SmtpReply[] = [];
    const ends: Array<Error | null> = [];
    readReplies(
      client,
      (reply) => {
        replies.push(reply);
        if (replies.length === 1) client.write("EHLO client.example\r\n");
      },
      (cause) => ends.push(cause),
    );
    await closed(client);
    expect(replies).toEqual([
      { code: 220, text: "mx.example ready" },
      { code: 250, text: "mx.example\nPIPELINING\nSIZE 100" },
      { code: 250, text: "2.1.0 Ok" },
    ]);
    expect(ends).toEqual([null]);
  });

  it("ends once, with the error, when the connection fails (the close that follows is not a second end)", async () => {
    const client = await connected(() => undefined);
    const ends: Array<Error | null> = [];
    readReplies(client, () => undefined, (cause) => ends.push(cause));
    const failure = new Error("destroyed by the test");
    client.destroy(failure);
    await closed(client);
    expect(ends).toEqual([failure]);
  });
});
