import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { JSON_LIMITS } from "../../src/json-limits.js";
import { validateRun, validateSession } from "../../src/db/validate.js";

/** `{a: {a: … {}}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const run = { run_id: "r1", session_id: "s1", agent_id: "a", status: "RUNNING", messages: [{ role: "user" }] };
const session = { session_id: "s1", session_type: "agent", agent_id: "a" };

/** The field a refused value is named by. */
function refusedField(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).field!;
  }
  throw new Error("accepted");
}

describe("validateRun", () => {
  it("answers a copy of the run's top level, its fields as they were", () => {
    const input = { ...run, extra: { kept: true } };
    const out = validateRun(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
  });

  it.each([
    ["run_id", { ...run, run_id: "" }],
    ["run_id", { ...run, run_id: "x".repeat(256) }],
    ["session_id", { ...run, session_id: "a\u0001b" }],
    ["session_id", { ...run, session_id: "a\ud800b" }],
    ["agent_id", { ...run, agent_id: 7 }],
    ["user_id", { ...run, user_id: "" }],
    ["parent_run_id", { ...run, parent_run_id: "\u007f" }],
    ["status", { ...run, status: "DONE" }],
    ["created_at", { ...run, created_at: 1.5 }],
    ["updated_at", { ...run, updated_at: -1 }],
    ["messages", { ...run, messages: null }],
    ["messages.0.role", { ...run, messages: [{ content: "no role" }] }],
    ["messages.0", { ...run, messages: ["hi"] }],
    ["session_state", { ...run, session_state: [] }],
    ["metadata", { ...run, metadata: "x" }],
  ])("refuses a bad %s, named as the schema names it", (field, input) => {
    expect(refusedField(() => validateRun(input))).toBe(field);
  });

  it("bounds the depth of the run, of its state and of its metadata", () => {
    const limit = JSON_LIMITS.maxDepth + 1;
    expect(() => validateRun({ ...run, session_state: nested(limit) })).not.toThrow();
    expect(refusedField(() => validateRun({ ...run, session_state: nested(limit + 1) }))).toMatch(/^session_state/);
    expect(refusedField(() => validateRun({ ...run, metadata: nested(limit + 1) }))).toMatch(/^metadata/);
    expect(() => validateRun({ ...run, deep: nested(JSON_LIMITS.maxDepth * 2 - 1) })).not.toThrow();
    expect(refusedField(() => validateRun({ ...run, deep: [nested(JSON_LIMITS.maxDepth * 2)] }))).toMatch(/^deep/);
  });
});

describe("validateSession", () => {
  it("keeps the schema's fields only", () => {
    const out = validateSession({ ...session, session_data: { session_state: { n: 1 } }, stray: 1 });
    expect(out).toEqual({ ...session, session_data: { session_state: { n: 1 } } });
  });

  it.each([
    ["session_id", { ...session, session_id: "a\u0000" }],
    ["session_type", { ...session, session_type: "crew" }],
    ["team_id", { ...session, team_id: "" }],
    ["created_at", { ...session, created_at: null }],
    ["updated_at", { ...session, updated_at: "now" }],
    ["summary", { ...session, summary: [] }],
    ["runs.0.run_id", { ...session, runs: [{ run_id: "", session_id: "s1" }] }],
  ])("refuses a bad %s, named as the schema names it", (field, input) => {
    expect(refusedField(() => validateSession(input))).toBe(field);
  });

  it("bounds the depth of its JSON fields (metadata one level less: nothing of ours wraps it)", () => {
    const limit = JSON_LIMITS.maxDepth + 1;
    expect(() => validateSession({ ...session, session_data: nested(limit) })).not.toThrow();
    expect(refusedField(() => validateSession({ ...session, session_data: nested(limit + 1) }))).toMatch(
      /^session_data/,
    );
    expect(refusedField(() => validateSession({ ...session, metadata: nested(limit) }))).toMatch(/^metadata/);
  });
});
