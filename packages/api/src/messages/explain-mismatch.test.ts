import type { MessageRecord } from "@mailstop/db";
import { explainMismatch, timeoutHint } from "./explain-mismatch";

const record = (overrides: Partial<MessageRecord> = {}): MessageRecord =>
  ({
    subject: "Your sign-in code",
    from: { address: "noreply@acme.example", name: "Acme" },
    to: [{ address: "a@mailstop.test", name: null }],
    cc: [],
    textBody: "Use 482913",
    correlationId: "run-7",
    messageId: "<m@acme.example>",
    receivedAt: new Date("2026-11-22T10:00:00Z"),
    codes: ["482913"],
    links: [{ url: "https://acme.example/login", kind: "sign_in", text: null }],
    headers: [["x-campaign", "spring"]],
    inboxAddress: "a@mailstop.test",
    attachments: [],
    ...overrides,
  }) as unknown as MessageRecord;

describe("explainMismatch", () => {
  it("is null when every predicate holds", () => {
    expect(explainMismatch(record(), { subject_contains: "SIGN-IN", from_contains: "acme <noreply", has_code: true, has_link_kind: "sign_in", header_contains: { "X-Campaign": "spr" } })).toBeNull();
  });

  it.each([
    [{ subject_contains: "password reset" }, { field: "subject_contains", expected: "password reset", actual: "Your sign-in code" }],
    [{ correlation_id: "RUN-7" }, { field: "correlation_id", expected: "RUN-7", actual: "run-7" }],
    [{ has_link_kind: "verify" as const }, { field: "has_link_kind", expected: "verify", actual: "sign_in" }],
    [{ has_code: false }, { field: "has_code", expected: "false", actual: "482913" }],
    [{ since: "2026-11-22T11:00:00Z" }, { field: "since", expected: "2026-11-22T11:00:00Z", actual: "2026-11-22T10:00:00.000Z" }],
    [{ header_contains: { "X-Campaign": "autumn" } }, { field: "header_contains", expected: "X-Campaign: autumn", actual: "X-Campaign: spring" }],
  ])("names the failing predicate of %p and the value seen", (match, expected) => {
    expect(explainMismatch(record(), match)).toEqual(expected);
  });
});

describe("timeoutHint", () => {
  it("tells to check the address when nothing arrived", () => {
    expect(timeoutHint("a@mailstop.test", 1000, 0, null)).toMatch(/^Nothing arrived at a@mailstop\.test in 1000 ms/);
  });

  it("names the newest stored message and its failing predicate when nothing new arrived but one is stored", () => {
    expect(timeoutHint("a@mailstop.test", 1000, 0, null, { subject: "Verify your email", mismatch: { field: "has_link_kind", expected: "reset_password", actual: "verify" } })).toBe(
      'Nothing new arrived at a@mailstop.test in 1000 ms, and its newest stored message ("Verify your email") does not match: has_link_kind "reset_password" failed; its value was "verify". Adjust has_link_kind, or check that the application sent the email this wait expects.',
    );
    expect(timeoutHint("a@mailstop.test", 1000, 0, null, { subject: "Hi", mismatch: null })).toMatch(/^Nothing new arrived .*"Hi"\) does not match; widen the match/);
  });

  it("names the failing predicate and the nearest value", () => {
    expect(timeoutHint("a@mailstop.test", 1000, 2, { field: "subject_contains", expected: "reset", actual: "Welcome" })).toBe(
      '2 messages arrived but none matched: subject_contains "reset" failed; the nearest value was "Welcome". Adjust subject_contains or drop it.',
    );
  });
});
