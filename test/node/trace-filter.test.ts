import { describe, expect, it } from "vitest";
import { parseTraceFilter } from "../../src/db/trace-filter.js";
import { traceTime } from "../../src/db/trace-time.js";
import { BadRequestError } from "../../src/errors.js";

describe("parseTraceFilter: agno's filter expression over trace columns", () => {
  it("keeps a well-formed expression, normalising times to UTC", () => {
    expect(
      parseTraceFilter({
        op: "AND",
        conditions: [
          { op: "IN", key: "status", values: ["OK", "ERROR"] },
          { op: "NOT", condition: { op: "GTE", key: "created_at", value: "2025-11-19T15:30:00+05:30" } },
          { op: "CONTAINS", key: "start_time", value: "2025-11" },
        ],
      }),
    ).toEqual({
      op: "AND",
      conditions: [
        { op: "IN", key: "status", values: ["OK", "ERROR"] },
        { op: "NOT", condition: { op: "GTE", key: "created_at", value: "2025-11-19T10:00:00.000Z" } },
        { op: "CONTAINS", key: "start_time", value: "2025-11" },
      ],
    });
  });

  it.each([
    ["not an object", "status"],
    ["no op", { key: "status", value: "OK" }],
    ["an unknown operator", { op: "LIKE", key: "status", value: "OK" }],
    ["an unknown column", { op: "EQ", key: "password", value: "x" }],
    ["a missing value", { op: "EQ", key: "status" }],
    ["a null value", { op: "EQ", key: "status", value: null }],
    ["a number for a text column", { op: "EQ", key: "status", value: 1 }],
    ["text for duration_ms", { op: "GT", key: "duration_ms", value: "5" }],
    ["text matching on duration_ms", { op: "CONTAINS", key: "duration_ms", value: 5 }],
    ["a time that is not one", { op: "GT", key: "start_time", value: "yesterday" }],
    ["an empty AND", { op: "AND", conditions: [] }],
    ["OR without a list", { op: "OR", conditions: { op: "EQ", key: "status", value: "OK" } }],
    ["NOT without a condition", { op: "NOT" }],
    ["IN without values", { op: "IN", key: "status", values: [] }],
    [
      "nesting deeper than ten",
      Array.from({ length: 12 }).reduce<unknown>((inner) => ({ op: "NOT", condition: inner }), {
        op: "EQ",
        key: "status",
        value: "OK",
      }),
    ],
  ])("refuses %s with a 400", (_why, raw) => {
    expect(() => parseTraceFilter(raw)).toThrow(BadRequestError);
    expect(() => parseTraceFilter(raw)).toThrow(/^Invalid filter expression: /);
  });
});

describe("traceTime: a time bound as agno parses one", () => {
  it.each([
    ["2025-11-19T10:00:00Z", "2025-11-19T10:00:00.000Z"],
    ["2025-11-19T15:30:00+05:30", "2025-11-19T10:00:00.000Z"],
    ["2025-11-19T15:30:00+0530", "2025-11-19T10:00:00.000Z"],
    ["2025-11-19T10:00:00", "2025-11-19T10:00:00.000Z"],
    ["2025-11-19 10:00:00.250", "2025-11-19T10:00:00.250Z"],
    ["2025-11-19", "2025-11-19T00:00:00.000Z"],
  ])("%s is %s", (text, utc) => expect(traceTime(text, "start_time")).toBe(utc));

  it.each(["yesterday", "1700000000", "2025-13-40T00:00:00Z", "", "2025-11-19T25:00:00Z"])(
    "%j is a 400 naming the parameter",
    (text) => expect(() => traceTime(text, "end_time")).toThrow(/Invalid end_time format/),
  );
});
