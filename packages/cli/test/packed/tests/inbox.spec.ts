import { connect } from "node:net";
import { expect, test } from "@mailstop/playwright";

// The fixture as a project's Playwright suite uses it: the application under test is played by
// a plain SMTP client that sends the code to the test's inbox (the port from SMTP_PORT).
async function send(port: number, to: string, subject: string, text: string): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  socket.setEncoding("utf8");
  let buffered = "";
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const complete = /(^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffered);
        if (complete === null) return;
        socket.off("data", onData);
        const answer = buffered;
        buffered = "";
        if (!/^[23]/.test(complete[2]!)) reject(new Error(`SMTP said ${answer}`));
        else resolve(answer);
      };
      const onData = (chunk: string) => {
        buffered += chunk;
        check();
      };
      socket.on("data", onData);
      check();
    });
  const say = async (line: string) => {
    socket.write(`${line}\r\n`);
    return reply();
  };
  await reply();
  await say("EHLO app.example");
  await say("MAIL FROM:<noreply@app.example>");
  await say(`RCPT TO:<${to}>`);
  await say("DATA");
  await say(`From: noreply@app.example\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n${text}\r\n.`);
  await say("QUIT");
  socket.end();
}

test("waits for the code mailed to its inbox", async ({ inbox }) => {
  await send(Number(process.env.SMTP_PORT), inbox.address, "Your code", "Your verification code is 482913");
  expect(await inbox.waitForCode({ subject_contains: "Your code" }, { timeoutMs: 20_000 })).toBe("482913");
});
