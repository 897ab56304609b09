import { describe, expect, it } from "vitest";
import { CalculatorTools } from "../../src/toolkits/calculator/index.js";
import { DateTimeTools } from "../../src/toolkits/date-time/index.js";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { WebSearchTools, tavilyProvider } from "../../src/toolkits/web-search/index.js";
import { scriptedModel } from "../support/agent-kit.js";
import { callThroughAgent } from "../support/toolkit-kit.js";

const parse = (s: string | null | undefined) => JSON.parse(s ?? "null") as Record<string, unknown>;

describe("CalculatorTools", () => {
  it("has agno's id and tool names, and include/exclude pick among them", () => {
    const all = new CalculatorTools();
    expect(all.id).toBe("calculator");
    expect(all.tools.map((t) => t.name)).toEqual([
      "add",
      "subtract",
      "multiply",
      "divide",
      "exponentiate",
      "factorial",
      "is_prime",
      "square_root",
    ]);
    expect(new CalculatorTools({ include: ["add"] }).tools.map((t) => t.name)).toEqual(["add"]);
    expect(new CalculatorTools({ exclude: ["factorial"] }).tools.map((t) => t.name)).not.toContain("factorial");
  });

  it("answers through an agent run as agno does", async () => {
    const calc = new CalculatorTools();
    const add = await callThroughAgent([calc], "add", { a: 2.5, b: 4 });
    expect(parse(add.execution.result)).toEqual({ operation: "addition", result: 6.5 });
    expect(parse(add.toolMessage)).toEqual({ operation: "addition", result: 6.5 });
    const fact = await callThroughAgent([calc], "factorial", { n: 25 });
    expect(parse(fact.execution.result)).toEqual({ operation: "factorial", result: "15511210043330985984000000" });
    expect(parse((await callThroughAgent([calc], "is_prime", { n: 1_000_000_007 })).execution.result)).toEqual({
      operation: "prime_check",
      result: true,
    });
  });

  it("domain errors are answers, bad arguments and limits are refused", async () => {
    const calc = new CalculatorTools();
    expect(parse((await callThroughAgent([calc], "divide", { a: 1, b: 0 })).execution.result)).toEqual({
      operation: "division",
      error: "Division by zero is undefined",
    });
    expect(parse((await callThroughAgent([calc], "square_root", { n: -4 })).execution.result)).toMatchObject({
      error: "Square root of a negative number is undefined",
    });
    expect(parse((await callThroughAgent([calc], "exponentiate", { a: 10, b: 400 })).execution.result)).toMatchObject({
      error: "The result is not a finite number",
    });
    expect(parse((await callThroughAgent([calc], "factorial", { n: 5000 })).execution.result)).toMatchObject({
      error: "Factorials above 1000 are not computed",
    });
    const bad = await callThroughAgent([calc], "add", { a: "two", b: 1 });
    expect(bad.execution.tool_call_error).toBe(true);
    expect(bad.toolMessage).toMatch(/^Error: invalid arguments for add/);
    const frac = await callThroughAgent([calc], "factorial", { n: 2.5 });
    expect(frac.execution.tool_call_error).toBe(true);
  });
});

describe("DateTimeTools", () => {
  const fixed = Date.UTC(2026, 2, 29, 0, 30, 0); // the night Europe/Paris moves to summer time
  const tools = new DateTimeTools({ now: () => fixed });

  it("tells the time in a zone, converts and computes", async () => {
    expect(tools.id).toBe("date_time");
    expect(parse((await callThroughAgent([tools], "get_current_time", {})).execution.result)).toEqual({
      datetime: "2026-03-29T00:30:00+00:00",
      timezone: "UTC",
      weekday: "Sunday",
      unix_timestamp: fixed / 1000,
    });
    const paris = parse(
      (await callThroughAgent([tools], "get_current_time", { timezone: "Europe/Paris" })).execution.result,
    );
    expect(paris.datetime).toBe("2026-03-29T01:30:00+01:00");
    const converted = parse(
      (
        await callThroughAgent([tools], "convert_timezone", {
          datetime: "2026-07-01T09:00",
          from_timezone: "America/New_York",
          to_timezone: "Asia/Tokyo",
        })
      ).execution.result,
    );
    expect(converted.datetime).toBe("2026-07-01T22:00:00+09:00");
    const later = parse(
      (
        await callThroughAgent([tools], "add_duration", {
          datetime: "2026-03-29T01:30",
          hours: 1,
          timezone: "Europe/Paris",
        })
      ).execution.result,
    );
    expect(later.datetime).toBe("2026-03-29T03:30:00+02:00");
    expect(
      parse(
        (await callThroughAgent([tools], "days_between", { start_date: "2026-01-01", end_date: "2026-12-25" }))
          .execution.result,
      ).days,
    ).toBe(358);
  });

  it("refuses unknown zones and malformed dates", async () => {
    const zone = await callThroughAgent([tools], "get_current_time", { timezone: "Mars/Olympus" });
    expect(zone.execution.tool_call_error).toBe(true);
    expect(zone.toolMessage).toMatch(/not an IANA time zone/);
    const date = await callThroughAgent([tools], "convert_timezone", { datetime: "yesterday", to_timezone: "UTC" });
    expect(date.execution.tool_call_error).toBe(true);
    expect(date.toolMessage).toMatch(/not an ISO 8601/);
    expect(() => new DateTimeTools({ defaultTimezone: "Nowhere/Here" })).toThrow(/unknown time zone/);
  });
});

describe("GET /agents/{id}", () => {
  it("lists each toolkit's tools in agno's AgentResponse shape", async () => {
    const { model } = await scriptedModel([]);
    const db = new MemoryDb();
    const agent = new Agent({
      id: "helper",
      model,
      db,
      tools: [
        new CalculatorTools({ include: ["add", "divide"] }),
        new DateTimeTools({ include: ["get_current_time"] }),
        new WebSearchTools({ provider: tavilyProvider({ apiKey: "k" }), enableNews: false }),
      ],
    });
    const os = new AgentOS({ agents: [agent], auth: { mode: "security_key", securityKey: "os-key" } });
    const res = await os.fetch(
      new Request("http://os/agents/helper", { headers: { authorization: "Bearer os-key" } }),
      {
        dbs: [db],
      },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: { tools: Array<Record<string, unknown>> } };
    expect(body.tools.tools.map((t) => t.name)).toEqual(["add", "divide", "get_current_time", "web_search"]);
    expect(body.tools.tools[3]).toEqual({
      name: "web_search",
      description: "Use this function to search the web for a query.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, maxLength: 400, description: "The query to search for." },
          max_results: {
            type: "integer",
            minimum: 1,
            maximum: 20,
            default: 5,
            description: "The maximum number of results to return.",
          },
        },
        required: ["query"],
      },
      requires_confirmation: false,
      external_execution: false,
    });
  });
});
