import { z } from "zod";
import { flattenTools, tool, Toolkit, type Tool, type ToolContext } from "../tools/tool.js";
import { requirementKind } from "../agent/hitl.js";
import { ToolPause, type ResumedCall } from "../tools/tool-pause.js";
import { isToolSource, type ToolSource, type ToolSourceContext } from "../tools/tool-source.js";
import type { CellLimits, CellResult, ToolAnswer } from "./sandbox.js";
import { DEFAULT_LIMITS } from "./sandbox.js";
import { codeToolDescription } from "./signatures.js";
import { errorMessage, ToolSourceError } from "../errors.js";

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
  /** tool sources (MCPTools) are asked at each run, and their tools are callable from cells like the rest */
  tools: Array<Tool | Toolkit | ToolSource>;
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
  /**
   * Set when some of its tools come from tool sources: the agent then asks it for each run's
   * code tool, whose declarations include the sources' tools of that run.
   */
  declare readonly resolveTools?: (ctx: ToolSourceContext) => Promise<Tool[]>;

  constructor(opts: CodeModeOptions) {
    const sources = opts.tools.filter(isToolSource);
    const inner = flattenTools(opts.tools.filter((t): t is Tool | Toolkit => !isToolSource(t)));
    checkInner(inner);
    super({ id: "codemode", tools: [codeTool(inner, opts)] });
    if (sources.length > 0) {
      Object.defineProperty(this, "resolveTools", {
        value: async (ctx: ToolSourceContext): Promise<Tool[]> => {
          const all = new Map(inner);
          for (const list of await Promise.all(sources.map((s) => s.resolveTools(ctx))))
            for (const t of list) {
              if (all.has(t.name))
                throw new ToolSourceError(`two tools of CodeMode are named ${t.name}: give one a prefix`);
              all.set(t.name, t);
            }
          checkInner(all);
          return [codeTool(all, opts)];
        },
      });
    }
  }
}

function checkInner(inner: Map<string, Tool>): void {
  for (const t of inner.values()) {
    if (!t.execute && !t.externalExecution) throw new TypeError(`tool ${t.name} has no execute()`);
  }
}

/** The code tool over `inner`: its description declares each of them. */
function codeTool(inner: Map<string, Tool>, opts: CodeModeOptions): Tool {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const toolNames = [...inner.keys()];
  return tool({
    name: opts.name ?? "run_code",
    description: codeToolDescription([...inner.values()], limits),
    parameters: z.object({ code: z.string().min(1).describe("JavaScript to run as the next cell of this session") }),
    execute: async ({ code }, ctx) => {
      // A continued run re-runs the paused cell itself (its code is in the checkpoint), replaying what it already did.
      const checkpoint = ctx.resumed ? readCheckpoint(ctx.resumed.checkpoint) : undefined;
      const source = checkpoint?.code ?? code;
      const host = new JournaledHost(inner, ctx, checkpoint);
      const started = Date.now();
      const cell = await opts.runner.run({
        sessionId: ctx.sessionId,
        code: source,
        toolNames,
        host,
        limits: opts.limits,
      });
      const pause = host.pausedOn;
      if (cell.paused && pause) {
        // Calls still running beside the paused one are journaled when they finish (within the cell's time).
        await host.settled(Math.max(0, limits.timeoutMs - (Date.now() - started)));
        const next: CellCheckpoint = {
          code: source,
          journal: host.journal,
          pending: { name: pause.tool.name, args: pause.key },
        };
        throw new ToolPause(pause.tool, pause.args, next);
      }
      return forModel(cell);
    },
  });
}

/** A tool call a cell made, and its answer, kept so the cell's re-run after a pause does not repeat it. */
interface JournalEntry {
  name: string;
  /** the arguments as canonical JSON */
  args: string;
  answer: ToolAnswer;
}

/** What a paused cell stores with its requirement: its code, the calls it made, and the call that waits. */
interface CellCheckpoint {
  code: string;
  journal: JournalEntry[];
  pending: { name: string; args: string };
}

function readCheckpoint(value: unknown): CellCheckpoint {
  const c = value as Partial<CellCheckpoint> | null;
  if (!c || typeof c.code !== "string" || !Array.isArray(c.journal) || !c.pending)
    throw new TypeError("the paused cell's checkpoint is unreadable");
  return c as CellCheckpoint;
}

/** JSON with object keys sorted, so the same arguments always give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * A cell's tool calls, validated against each tool's zod schema before they run, and journaled.
 * A call to a tool that needs a person answers `paused`, which stops the cell; the run pauses.
 * When it continues, the cell runs again from the start: calls found in the journal (same tool,
 * same arguments) get their recorded answers without running again, and the call that waited
 * gets the person's decision.
 */
class JournaledHost implements ToolHost {
  readonly journal: JournalEntry[] = [];
  pausedOn: { tool: Tool; args: Record<string, unknown>; key: string } | undefined;
  private readonly replay: JournalEntry[];
  private decision: ResumedCall | undefined;
  private readonly pending: { name: string; args: string } | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** what the cell's tools get: the run's context, without the outer call's resumption */
  private readonly ctx: ToolContext;

  /** `checkpoint` is the one `ctx.resumed` carries, already read; `ctx.resumed` holds the decision. */
  constructor(
    private readonly tools: Map<string, Tool>,
    ctx: ToolContext,
    checkpoint?: CellCheckpoint,
  ) {
    const { resumed, ...rest } = ctx;
    this.ctx = rest;
    this.replay = [...(checkpoint?.journal ?? [])];
    this.pending = checkpoint?.pending;
    this.decision = resumed;
  }

  call(name: string, args: unknown): Promise<ToolAnswer> {
    const work = this.answer(name, args);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
    return work;
  }

  /** Settles when every call the cell started has finished (a pause leaves others running), or after `ms`. */
  async settled(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    const all = (async () => {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    })();
    await Promise.race([all, late]);
    if (timer !== null) clearTimeout(timer);
  }

  private async answer(name: string, args: unknown): Promise<ToolAnswer> {
    const key = canonical(args ?? {});
    const seen = this.replay.findIndex((e) => e.name === name && e.args === key);
    if (seen >= 0) {
      const [entry] = this.replay.splice(seen, 1);
      this.journal.push(entry!);
      return entry!.answer;
    }
    const t = this.tools.get(name);
    if (!t) return { ok: false, error: `there is no tool named ${name}` };
    const parsed = t.parameters.safeParse(args);
    // A tool that asks a person for some arguments is checked once they have supplied them.
    const waitsForInput = t.requiresUserInput && isObject(args);
    if (!parsed.success && !waitsForInput) return invalid(`${name}: invalid arguments`, parsed.error);
    let answer: ToolAnswer;
    if (requirementKind(t)) {
      const decided = this.decided(name, key);
      if (!decided) {
        this.pausedOn ??= { tool: t, args: (parsed.success ? parsed.data : args) as Record<string, unknown>, key };
        return { paused: true };
      }
      answer = await this.afterDecision(t, decided);
    } else {
      answer = await this.execute(t, parsed.data);
    }
    this.journal.push({ name, args: key, answer });
    return answer;
  }

  /** The person's decision, when this is the call the cell paused on (once). */
  private decided(name: string, key: string): ResumedCall | undefined {
    if (!this.decision || this.pending?.name !== name || this.pending.args !== key) return undefined;
    const decision = this.decision;
    this.decision = undefined;
    return decision;
  }

  private async afterDecision(t: Tool, d: ResumedCall): Promise<ToolAnswer> {
    if (d.kind === "confirmation" && d.confirmed !== true) {
      return {
        ok: false,
        error: `the user rejected this call to ${t.name}${d.confirmation_note ? `: ${d.confirmation_note}` : ""}`,
      };
    }
    if (d.kind === "external_execution") return { ok: true, value: parseMaybe(d.external_execution_result ?? "") };
    // A person's input is merged into the arguments: check them again.
    const parsed = t.parameters.safeParse(d.args);
    if (!parsed.success) return invalid(`${t.name}: invalid arguments after the user's input`, parsed.error);
    return this.execute(t, parsed.data);
  }

  private async execute(t: Tool, args: unknown): Promise<ToolAnswer> {
    if (!t.execute) return { ok: false, error: `${t.name} runs outside the agent` };
    try {
      const value = await t.execute(args, this.ctx);
      return { ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
    } catch (error) {
      return { ok: false, error: `${t.name} failed: ${errorMessage(error)}` };
    }
  }
}

/** A validation failure as the error thrown into the cell: every bad field by its path. */
function invalid(prefix: string, error: z.ZodError): ToolAnswer {
  const issues = error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`);
  return { ok: false, error: `${prefix}: ${issues.join("; ")}` };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** An external executor's result: JSON when it parses, the text otherwise. */
function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
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
