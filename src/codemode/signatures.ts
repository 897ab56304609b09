import { requirementKind } from "../agent/hitl.js";
import type { RunRequirement } from "../agent/run-output.js";
import type { Tool } from "../tools/tool.js";

type Schema = Record<string, unknown>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON Schema (draft 7, as `tool.definition()` gives it) as a TypeScript type expression. */
export function schemaToType(schema: unknown, indent = ""): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  const s = schema as Schema;
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(s[key])) return (s[key] as unknown[]).map((v) => schemaToType(v, indent)).join(" | ");
  }
  if (Array.isArray(s.allOf)) return (s.allOf as unknown[]).map((v) => schemaToType(v, indent)).join(" & ");
  const type = s.type;
  if (Array.isArray(type)) return type.map((t) => schemaToType({ ...s, type: t }, indent)).join(" | ");
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      // Tuples: `items: [...]` in draft 7, `prefixItems` in 2020-12 (a schema in `items`/`additionalItems` types the rest).
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
      if (prefix) {
        const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
        const tail =
          rest && typeof rest === "object" ? [`...${schemaToType({ type: "array", items: rest }, indent)}`] : [];
        return `[${[...(prefix as unknown[]).map((v) => schemaToType(v, indent)), ...tail].join(", ")}]`;
      }
      const item = schemaToType(s.items, indent);
      return /[|&]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case "object":
      return objectType(s, indent);
    default:
      return s.properties ? objectType(s, indent) : "unknown";
  }
}

function objectType(s: Schema, indent: string): string {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(([name, prop]) => {
    const key = IDENT.test(name) ? name : JSON.stringify(name);
    const doc = typeof prop.description === "string" ? `${inner}/** ${oneLine(prop.description)} */\n` : "";
    return `${doc}${inner}${key}${required.has(name) ? "" : "?"}: ${schemaToType(prop, inner)};`;
  });
  const extra = s.additionalProperties;
  if (extra && extra !== false && typeof extra === "object")
    lines.push(`${inner}[key: string]: ${schemaToType(extra, inner)};`);
  if (lines.length === 0) return extra === false ? "{}" : "Record<string, unknown>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").replace(/\*\//g, "*\\/").trim();

/**
 * One tool as the TypeScript declaration the model codes against, e.g.
 * `declare function get_weather(args: { city: string }): Promise<unknown>;`, with its
 * description as JSDoc.
 */
export function toolSignature(tool: Tool): string {
  const { parameters } = tool.definition();
  const notes = [tool.description ? oneLine(tool.description) : "", personNote(tool)].filter(Boolean).join(" ");
  const doc = notes ? `/** ${notes} */\n` : "";
  return `${doc}declare function ${tool.name}(args: ${schemaToType(parameters)}): Promise<unknown>;`;
}

/** What the model is told of each kind of tool that waits for a person. */
const PERSON_NOTES: Record<RunRequirement["kind"], string> = {
  external_execution: "(Runs outside the agent: the cell pauses until its result arrives.)",
  user_input: "(A person supplies some arguments first: the cell pauses until they do.)",
  confirmation: "(A person must confirm each call: the cell pauses until they do; a rejection throws.)",
};

/** Tells the model a tool waits for a person, so it knows the cell will stop there for a while. */
function personNote(tool: Tool): string {
  const kind = requirementKind(tool);
  return kind ? PERSON_NOTES[kind] : "";
}

/** What the code tool's description says about the sandbox's limits (the numbers it enforces). */
export interface DescribedLimits {
  timeoutMs: number;
  maxOutputChars: number;
}

/**
 * The code tool's description: how to call the tools, what a cell returns, and what persists
 * between cells (top-level declarations; JSON values by value, functions and classes by source).
 */
export function codeToolDescription(tools: Tool[], limits: DescribedLimits): string {
  return [
    "Run JavaScript in a sandbox that keeps its state for this whole session, like a notebook.",
    "Each tool below is an async function taking one object argument: `const r = await get_x({ id: 1 })`.",
    "Batch independent calls with `await Promise.all([...])`; loop, filter and combine results in code instead of calling tools one by one.",
    "A tool called with invalid arguments throws an Error whose message names the bad fields; you can catch it.",
    "Top-level await works. `return value` ends the cell and gives back `value` (keep it small: return what you need, not everything).",
    "`console.log` output is returned with the result " +
      `(at most ${limits.maxOutputChars} characters; the rest is cut).`,
    "State: top-level `const`/`let`/`var`, functions and classes persist into the next cell after the cell finishes, even if it throws.",
    "Values persist as JSON (numbers, strings, booleans, null, plain objects, arrays; a Date becomes its ISO string; a Map, Set or class instance is not kept).",
    "Functions and classes persist as source and are re-created in the next cell: they can use other top-level names, but not private closure state.",
    "There is no network (`fetch` is not available), no timers, no `require`/`import`: reach the outside world only through the tools.",
    ...(tools.some((t) => requirementKind(t) !== null)
      ? [
          "A call to a tool that waits for a person pauses the run. When it continues, the cell runs again from its start: tool calls it already made return their recorded results without running again, so keep a cell's tool calls the same on every run (no random or time-dependent arguments).",
        ]
      : []),
    `A cell is stopped after about ${Math.round(limits.timeoutMs / 1000)} s of wall time or when it exceeds its CPU or memory budget; the error comes back and the session stays usable.`,
    "",
    "Tools:",
    "```ts",
    tools.map(toolSignature).join("\n\n"),
    "```",
  ].join("\n");
}
