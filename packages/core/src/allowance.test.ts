import { type LimitState, limitError, spentLimit } from "./allowance";

const state = (over: Partial<LimitState> = {}): LimitState => ({
  organisationLimits: false,
  project: { monthlyMessages: null, messagesUsed: null },
  organisation: { monthlyMessages: null, messagesUsed: null, storageBytes: null, storedBytes: null },
  ...over,
});

describe("spentLimit", () => {
  it("is spent when used reaches the limit (used ≥ limit), never below", () => {
    expect(spentLimit(state({ project: { monthlyMessages: 3, messagesUsed: 2 } }))).toBeNull();
    expect(spentLimit(state({ project: { monthlyMessages: 3, messagesUsed: 3 } }))).toEqual({ scope: "project", limitKind: "monthly_messages", used: 3, limit: 3 });
    expect(spentLimit(state({ project: { monthlyMessages: 0, messagesUsed: null } }))).toEqual({ scope: "project", limitKind: "monthly_messages", used: 0, limit: 0 });
  });

  it("with organisation limits on, only the organisation's count (messages, then bytes); off, only the project's", () => {
    const organisation = { monthlyMessages: 10, messagesUsed: 4, storageBytes: 100, storedBytes: 100 };
    const project = { monthlyMessages: 1, messagesUsed: 5 };
    expect(spentLimit(state({ organisationLimits: true, project, organisation }))).toEqual({ scope: "organisation", limitKind: "storage_bytes", used: 100, limit: 100 });
    expect(spentLimit(state({ organisationLimits: true, project, organisation: { ...organisation, messagesUsed: 10 } }))?.limitKind).toBe("monthly_messages");
    expect(spentLimit(state({ organisationLimits: true, project, organisation: { ...organisation, storedBytes: 99 } }))).toBeNull();
    expect(spentLimit(state({ organisationLimits: false, project, organisation: { ...organisation, messagesUsed: 10 } }))?.scope).toBe("project");
  });
});

describe("limitError", () => {
  it("is quota_exceeded (not retryable) for the project, organisation_limit_exceeded (retryable) for the organisation, with the details", () => {
    const at = new Date("2026-11-30T23:00:00Z");
    const project = limitError({ scope: "project", limitKind: "monthly_messages", used: 3, limit: 3 }, at);
    expect([project.code, project.status, project.retryable]).toEqual(["quota_exceeded", 402, false]);
    expect(project.details).toEqual({ limit_kind: "monthly_messages", used: 3, limit: 3, period_resets_at: "2026-12-01T00:00:00.000Z" });
    const organisation = limitError({ scope: "organisation", limitKind: "storage_bytes", used: 9, limit: 8 }, at);
    expect([organisation.code, organisation.status, organisation.retryable]).toEqual(["organisation_limit_exceeded", 402, true]);
    expect(organisation.details?.limit_kind).toBe("storage_bytes");
  });
});
