import { z } from "zod";
import { flattenTools, tool, Toolkit, type Tool, type ToolContext } from "../tools/tool.js";
import type { CellLimits, CellResult, ToolAnswer } from "./sandbox.js";
import { DEFAULT_LIMITS } from "./sandbox.js";
import { codeToolDescription } from "./signatures.js";

/** The host side of a cell's tool calls: validates the arguments and runs the tool. */
export interface ToolHost {
  call(name: string, args: unknown): Promise<ToolAnswer>;
}

export interface CellRequest {
  /** one sandbox state per session: cells of one session run in order and share their variables */
  sessionId: string;
  code: string;
  toolNames: string[];
  host: ToolHost;
  limits?: Partial<CellLimits>;
}

/**
 * Where cells run. The Worker supplies one backed by the CodeModeSession Durable Object
 * (`durableCodeRunner(env.CODEMODE_SESSION)`), so agent code never imports the object's class.
 */
export interface CodeRunner {
  run(request: CellRequest): Promise<CellResult>;
}

export interface CodeModeOptions {
  tools: Array<Tool | Toolkit>;
  runner: CodeRunner;
  /** the code tool's name (default `run_code`) */
  name?: string;
  limits?: Partial<CellLimits>;
}

/**
 * Gives an agent one code-execution tool in place of many tools: the model writes JavaScript in
 * which each tool is an async function, and the session keeps its variables between cells.
 *
 * @example
 * const agent = new Agent({
 *   name: "analyst",
 *   model,
 *   tools: [new CodeMode({ tools: [lookupOrder, listCustomers], runner: durableCodeRunner(env.CODEMODE_SESSION) })],
 * });
 */
export class CodeMode extends Toolkit {
  constructor(opts: CodeModeOptions) {
    const inner = flattenTools(opts.tools);
    for (const t of inner.values()) {
      // A cell cannot pause for a person (the HITL pause works at the model's tool calls), so such
      // tools are refused here rather than run unconfirmed from inside the code.
      if (t.requiresConfirmation || t.requiresApproval || t.requiresUserInput || t.externalExecution) {
        throw new TypeError(`tool ${t.name} needs a person or an external executor, which CodeMode does not support yet: give it to the agent directly`);
      }
      if (!t.execute) throw new TypeError(`tool ${t.name} has no execute()`);
    }
    const limits = { ...DEFAULT_LIMITS, ...opts.limits };
    const toolNames = [...inner.keys()];
    const runCode = tool({
      name: opts.name ?? "run_code",
      description: codeToolDescription([...inner.values()], limits),
      parameters: z.object({ code: z.string().min(1).describe("JavaScript to run as the next cell of this session") }),
      execute: async ({ code }, ctx) => {
        const cell = await opts.runner.run({ sessionId: ctx.sessionId, code, toolNames, host: toolHost(inner, ctx), limits: opts.limits });
        return forModel(cell);
      },
    });
    super({ id: "codemode", tools: [runCode] });
  }
}

/** A cell's tool calls, validated against each tool's zod schema before it runs. */
export function toolHost(tools: Map<string, Tool>, ctx: ToolContext): ToolHost {
  return {
    async call(name, args) {
      const t = tools.get(name);
      if (!t?.execute) return { ok: false, error: `there is no tool named ${name}` };
      const parsed = t.parameters.safeParse(args);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`);
        return { ok: false, error: `${name}: invalid arguments: ${issues.join("; ")}` };
      }
      try {
        const value = await t.execute(parsed.data, ctx);
        return { ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
      } catch (error) {
        return { ok: false, error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

/** What the model reads back: only the fields that say something. */
function forModel(cell: CellResult): Record<string, unknown> {
  return {
    ...(cell.error ? { error: `${cell.error.name}: ${cell.error.message}` } : {}),
    ...(cell.result !== undefined ? { result: cell.result } : {}),
    ...(cell.logs ? { logs: cell.logs } : {}),
    ...(cell.notPersisted.length ? { not_persisted: cell.notPersisted } : {}),
  };
}
