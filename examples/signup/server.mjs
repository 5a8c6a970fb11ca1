// A sign-up page as a small product has one: the form takes an email address, the app emails a
// verification link and a six-digit code, and either one verifies the account. It sends through
// SMTP_URL: mailstop's receiving edge (the default, as if the inbox were a real mailbox) or its
// capture relay (`smtp://user:password@host:2587`, as a staging app sends). Accounts live in
// memory; this is an example, not a product.
import { randomBytes, randomInt } from "node:crypto";
import { createServer } from "node:http";
import nodemailer from "nodemailer";

const port = Number(process.env.PORT ?? 3000);
const appUrl = (process.env.APP_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, "");
const smtpUrl = process.env.SMTP_URL ?? "smtp://127.0.0.1:2525";
const transport = nodemailer.createTransport(smtpUrl);
const from = process.env.MAIL_FROM ?? "Acme <noreply@acme.example>";

/** email → { token, code, verified } */
const accounts = new Map();

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(res, status, title, body) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "content-security-policy": "default-src 'self'" });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`);
}

const signupForm = `
  <form method="post" action="/signup">
    <label>Email <input type="email" name="email" required></label>
    <button type="submit">Sign up</button>
  </form>`;

const codeForm = (email) => `
  <p>We sent a verification email to <strong>${escape(email)}</strong>. Open its link, or type its code:</p>
  <form method="post" action="/verify-code">
    <input type="hidden" name="email" value="${escape(email)}">
    <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>
    <button type="submit">Verify</button>
  </form>`;

async function signUp(email) {
  const account = { token: randomBytes(16).toString("hex"), code: String(randomInt(100000, 1000000)), verified: false };
  accounts.set(email, account);
  const link = `${appUrl}/verify?token=${account.token}`;
  await transport.sendMail({
    from,
    to: email,
    subject: "Verify your email for Acme",
    text: `Welcome to Acme!\n\nYour verification code is ${account.code}.\n\nOr verify your email with this link: ${link}\n`,
    html: `<p>Welcome to Acme!</p><p>Your verification code is <strong>${account.code}</strong>.</p><p><a href="${escape(link)}">Verify your email</a></p>`,
  });
}

function verified(res, email) {
  page(res, 200, "Account verified", `<p>Your account <strong>${escape(email)}</strong> is verified.</p>`);
}

async function readForm(req) {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) throw new Error("form too large");
  }
  return new URLSearchParams(body);
}

async function handle(req, res) {
  const url = new URL(req.url ?? "/", appUrl);
  if (req.method === "GET" && url.pathname === "/health") return res.end("ok");
  if (req.method === "GET" && url.pathname === "/") return page(res, 200, "Create your Acme account", signupForm);
  if (req.method === "POST" && url.pathname === "/signup") {
    const email = (await readForm(req)).get("email")?.trim() ?? "";
    if (!email.includes("@")) return page(res, 400, "Create your Acme account", `<p role="alert">Enter an email address.</p>${signupForm}`);
    await signUp(email);
    return page(res, 200, "Check your inbox", codeForm(email));
  }
  if (req.method === "GET" && url.pathname === "/verify") {
    const token = url.searchParams.get("token");
    for (const [email, account] of accounts) {
      if (account.token === token) {
        account.verified = true;
        return verified(res, email);
      }
    }
    return page(res, 404, "Link not valid", "<p>This verification link is not valid.</p>");
  }
  if (req.method === "POST" && url.pathname === "/verify-code") {
    const form = await readForm(req);
    const email = form.get("email") ?? "";
    const account = accounts.get(email);
    if (account !== undefined && account.code === form.get("code")?.trim()) {
      account.verified = true;
      return verified(res, email);
    }
    return page(res, 400, "Check your inbox", `<p role="alert">That code is not right.</p>${codeForm(email)}`);
  }
  page(res, 404, "Not found", "");
}

createServer((req, res) => {
  handle(req, res).catch((error) => {
    console.error(error);
    if (!res.headersSent) page(res, 500, "Something went wrong", `<p role="alert">${escape(error.message)}</p>`);
    else res.end();
  });
}).listen(port, "127.0.0.1", () => console.log(`signup example on ${appUrl} (mail through ${new URL(smtpUrl).host})`));
