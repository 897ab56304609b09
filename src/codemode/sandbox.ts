import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { topLevelDeclarations } from "./declarations.js";
import { errorMessage } from "../errors.js";

/** What a cell may use. CPU is counted in interpreter interrupt checks, which advance with work, not with the clock. */
export interface CellLimits {
  /** wall time for the whole cell, tool calls included */
  timeoutMs: number;
  /** interrupt checks QuickJS may make (one every few thousand bytecode operations) before the cell is stopped */
  cpuBudget: number;
  /** heap the interpreter may allocate */
  memoryBytes: number;
  /** console output kept, in characters; the rest is cut */
  maxOutputChars: number;
  /** size of the cell's return value, as JSON characters */
  maxResultChars: number;
  /** size of the whole persisted state, as JSON characters */
  maxStateChars: number;
}

export const DEFAULT_LIMITS: CellLimits = {
  timeoutMs: 30_000,
  cpuBudget: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  maxOutputChars: 64 * 1024,
  maxResultChars: 256 * 1024,
  maxStateChars: 1024 * 1024,
};

/** One persisted top-level name: a JSON value, or the source of a function or class. */
export type StateEntry = { name: string; json: string } | { name: string; source: string };

/**
 * What a tool call from a cell comes back as. Errors (bad arguments, a throwing tool) are thrown
 * inside the cell; `paused` stops the cell where it is (the call needs a person first).
 */
export type ToolAnswer = { ok: true; value: unknown } | { ok: false; error: string } | { paused: true };

export interface CellError {
  /** `TimeoutError`, `CpuLimitError`, `MemoryLimitError`, `SyntaxError`, or the thrown error's name */
  name: string;
  message: string;
  stack?: string;
}

export interface CellResult {
  /** the cell's `return` value, as JSON-compatible data (undefined when it returned nothing) */
  result?: unknown;
  logs: string;
  logsTruncated: boolean;
  error?: CellError;
  /** names whose values could not be kept (not JSON, or not re-creatable) */
  notPersisted: string[];
  /** a tool call answered `paused`: the cell stopped there and its state was not kept */
  paused?: true;
}

export interface CellInput {
  code: string;
  state: StateEntry[];
  toolNames: string[];
  callTool: (name: string, args: unknown) => Promise<ToolAnswer>;
  limits?: Partial<CellLimits>;
}

const RUN = "__cm_run";

/**
 * Runs one cell of JavaScript in a fresh QuickJS runtime (WebAssembly): no host objects but the
 * tools and `console`, no network, no timers. The previous cells' state is restored as global
 * `let` bindings; after the cell its top-level names are captured again.
 */
export async function runCell(
  qjs: QuickJSWASMModule,
  input: CellInput,
): Promise<{ cell: CellResult; state: StateEntry[] }> {
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  const started = Date.now();
  const rt = qjs.newRuntime();
  let ticks = 0;
  let budget = limits.cpuBudget;
  let stop: CellError | undefined;
  rt.setMemoryLimit(limits.memoryBytes);
  rt.setMaxStackSize(512 * 1024);
  rt.setInterruptHandler(() => {
    if (++ticks > budget)
      stop ??= {
        name: "CpuLimitError",
        message: `the cell used its whole CPU budget (${limits.cpuBudget} interrupt checks) and was stopped`,
      };
    else if (Date.now() - started > limits.timeoutMs) stop ??= timeoutError(limits);
    return stop !== undefined;
  });
  const vm = rt.newContext();
  const logs = new LogBuffer(limits.maxOutputChars);
  const host = new HostCalls(vm, input.callTool);
  try {
    installHost(vm, logs, host);
    evalGlobal(vm, PRELUDE(input.toolNames), "prelude.js");
    const restore = restoreScript(input.state);
    const restored = vm.evalCode(restore, "restore.js");
    if (restored.error) restored.error.dispose();
    else restored.value.dispose();
    const declared = topLevelDeclarations(input.code);
    const names = [...new Set([...input.state.map((e) => e.name), ...declared])];
    const error = await execute(vm, rt, host, cellScript(input.code, names), limits, started, () => stop);
    // A paused cell runs again from its start when the run continues: nothing of it is kept now.
    if (host.paused)
      return { cell: { logs: "", logsTruncated: false, notPersisted: [], paused: true }, state: input.state };
    const result = error ? undefined : readResult(vm, limits);
    // Capturing runs with a fresh, small budget: a cell stopped for CPU still keeps what it set.
    ticks = 0;
    budget = 2_000;
    stop = undefined;
    const captured = capture(vm, limits);
    const failure = error ?? (result && "error" in result ? result.error : undefined) ?? captured.error;
    const cell: CellResult = {
      ...(result && "value" in result ? { result: result.value } : {}),
      logs: logs.text(),
      logsTruncated: logs.truncated,
      ...(failure ? { error: failure } : {}),
      notPersisted: captured.notPersisted,
    };
    return { cell, state: captured.state ?? input.state };
  } finally {
    host.close();
    vm.dispose();
    rt.dispose();
  }
}

/** What a cell comes back as when the interpreter itself failed (a WebAssembly trap, a loaded Worker gone): the state is untouched. */
export function sandboxFailure(error: unknown): CellResult {
  const message = errorMessage(error);
  return {
    logs: "",
    logsTruncated: false,
    notPersisted: [],
    error: { name: "SandboxError", message: `the sandbox failed: ${message}; the session's state is kept` },
  };
}

function timeoutError(limits: CellLimits): CellError {
  return { name: "TimeoutError", message: `the cell did not finish within ${limits.timeoutMs} ms and was stopped` };
}

/** Runs the cell's script, then drives its promise: pending jobs, tool answers, until it settles or a limit stops it. */
async function execute(
  vm: QuickJSContext,
  rt: QuickJSRuntime,
  host: HostCalls,
  script: string,
  limits: CellLimits,
  started: number,
  stopped: () => CellError | undefined,
): Promise<CellError | undefined> {
  const evaluated = vm.evalCode(script, "cell.js");
  if (evaluated.error) return errorFrom(vm, evaluated.error, stopped());
  evaluated.value.dispose();
  for (;;) {
    const jobs = rt.executePendingJobs();
    if (jobs.error) return errorFrom(vm, jobs.error, stopped());
    const limit = stopped();
    if (limit) return limit;
    const run = vm.getProp(vm.global, RUN);
    const state = vm.getPromiseState(run);
    run.dispose();
    if (state.type === "fulfilled") {
      state.value.dispose();
      return undefined;
    }
    if (state.type === "rejected") return errorFrom(vm, state.error, undefined);
    if (host.paused) return undefined;
    if (host.pending === 0) {
      return {
        name: "TimeoutError",
        message:
          "the cell awaits a promise that nothing can settle (no tool call is outstanding, and there are no timers): it would never finish",
      };
    }
    const left = limits.timeoutMs - (Date.now() - started);
    if (left <= 0 || !(await host.settled(left))) return timeoutError(limits);
  }
}

/** A QuickJS error as a CellError, disposing the handle; a limit the host enforced wins over the interpreter's own message. */
function errorFrom(vm: QuickJSContext, handle: QuickJSHandle, limit: CellError | undefined): CellError {
  const dumped = vm.dump(handle) as unknown;
  handle.dispose();
  if (limit) return limit;
  if (dumped && typeof dumped === "object") {
    const e = dumped as { name?: unknown; message?: unknown; stack?: unknown };
    const message = String(e.message ?? dumped);
    if (/out of memory/i.test(message))
      return { name: "MemoryLimitError", message: "the cell ran out of memory (its heap limit) and was stopped" };
    return {
      name: typeof e.name === "string" ? e.name : "Error",
      message,
      ...(typeof e.stack === "string" && e.stack ? { stack: e.stack } : {}),
    };
  }
  return { name: "Error", message: `the cell threw a non-error value: ${JSON.stringify(dumped) ?? String(dumped)}` };
}

function evalGlobal(vm: QuickJSContext, code: string, file: string): void {
  const r = vm.evalCode(code, file);
  if (r.error) {
    const e = vm.dump(r.error) as unknown;
    r.error.dispose();
    throw new Error(`codemode ${file} failed: ${JSON.stringify(e)}`);
  }
  r.value.dispose();
}

/** Tool calls in flight: each resolves a promise inside QuickJS when the host's call settles. */
class HostCalls {
  pending = 0;
  /** a call answered `paused`: the cell goes no further */
  paused = false;
  private closed = false;
  /** promises the cell still awaits: disposed with the runtime, which refuses to free live handles */
  private readonly open = new Set<QuickJSDeferredPromise>();
  private wake: (() => void) | undefined;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly call: (name: string, args: unknown) => Promise<ToolAnswer>,
  ) {}

  start(name: string, argsJson: string): QuickJSHandle {
    const deferred = this.vm.newPromise();
    this.open.add(deferred);
    this.pending++;
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      args = undefined;
    }
    const answer = this.call(name, args).catch((error: unknown): ToolAnswer => ({
      ok: false,
      error: errorMessage(error),
    }));
    void answer.then((a) => {
      this.pending--;
      if (this.closed) return;
      if ("paused" in a) {
        // The call's promise stays pending inside the cell; the runtime's disposal frees it.
        this.paused = true;
        this.wake?.();
        return;
      }
      this.open.delete(deferred);
      if (a.ok) {
        const json = JSON.stringify(a.value ?? null);
        const text = this.vm.newString(json);
        deferred.resolve(text);
        text.dispose();
      } else {
        const error = this.vm.newError({ name: "ToolError", message: a.error });
        deferred.reject(error);
        error.dispose();
      }
      deferred.dispose();
      this.wake?.();
    });
    return deferred.handle;
  }

  /** Waits until some call settles (true) or `ms` pass (false). */
  settled(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }

  close(): void {
    this.closed = true;
    this.wake = undefined;
    for (const deferred of this.open) deferred.dispose();
    this.open.clear();
  }
}

/** Console output up to a limit; what goes over is dropped and counted. */
class LogBuffer {
  private parts: string[] = [];
  private size = 0;
  private dropped = 0;
  constructor(private readonly max: number) {}

  get truncated(): boolean {
    return this.dropped > 0;
  }

  add(line: string): void {
    const room = this.max - this.size;
    if (room <= 0) {
      this.dropped += line.length + 1;
      return;
    }
    const kept = line.length + 1 > room ? line.slice(0, room) : `${line}\n`;
    this.dropped += line.length + 1 - kept.length;
    this.parts.push(kept);
    this.size += kept.length;
  }

  text(): string {
    const body = this.parts.join("");
    return this.dropped > 0 ? `${body}\n… output truncated: ${this.dropped} more characters not shown` : body;
  }
}

function installHost(vm: QuickJSContext, logs: LogBuffer, host: HostCalls): void {
  const log = vm.newFunction("__cm_log", (line) => {
    logs.add(vm.getString(line));
  });
  vm.setProp(vm.global, "__cm_log", log);
  log.dispose();
  const call = vm.newFunction("__cm_call", (name, args) => host.start(vm.getString(name), vm.getString(args)));
  vm.setProp(vm.global, "__cm_call", call);
  call.dispose();
}

/** Tools as async functions and a console, over the two host functions (which it then hides). */
const PRELUDE = (toolNames: string[]) => `(() => {
  const call = globalThis.__cm_call, log = globalThis.__cm_log;
  delete globalThis.__cm_call; delete globalThis.__cm_log;
  const show = (v) => {
    if (typeof v === "string") return v;
    if (v instanceof Error) return v.stack ? v.name + ": " + v.message + "\\n" + v.stack : v.name + ": " + v.message;
    if (typeof v === "function") return "[Function " + (v.name || "anonymous") + "]";
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); }
  };
  const write = (prefix) => (...args) => { log(prefix + args.map(show).join(" ")); };
  globalThis.console = { log: write(""), info: write(""), debug: write(""), warn: write("warn: "), error: write("error: ") };
  for (const name of ${JSON.stringify(toolNames)}) {
    globalThis[name] = { [name]: async (args) => JSON.parse(await call(name, JSON.stringify(args === undefined ? {} : args))) }[name];
  }
  const baseline = new Set(Object.getOwnPropertyNames(globalThis));
  globalThis.__cm_snapshot = (names, maxChars) => {
    const values = globalThis.__cm_capture ? globalThis.__cm_capture() : [];
    const seen = new Set(values.map((v) => v[0]));
    for (const k of Object.getOwnPropertyNames(globalThis)) {
      if (!baseline.has(k) && !k.startsWith("__cm_") && !seen.has(k)) values.push([k, globalThis[k]]);
    }
    const state = [], notPersisted = [];
    let size = 0;
    for (const [name, value] of values) {
      let entry;
      if (typeof value === "function") {
        const source = Function.prototype.toString.call(value);
        try { new Function("return (" + source + ")"); entry = { name, source }; } catch { notPersisted.push(name); continue; }
      } else if (value === undefined) {
        continue;
      } else {
        const proto = value !== null && typeof value === "object" ? Object.getPrototypeOf(value) : null;
        const plain = proto === null || proto === Object.prototype || proto === Array.prototype || proto === Date.prototype;
        let json;
        try { json = plain ? JSON.stringify(value) : undefined; } catch { json = undefined; }
        if (json === undefined) { notPersisted.push(name); continue; }
        entry = { name, json };
      }
      size += name.length + (entry.json ?? entry.source).length;
      if (size > maxChars) return JSON.stringify({ tooLarge: true });
      state.push(entry);
    }
    return JSON.stringify({ state, notPersisted });
  };
  globalThis.__cm_serialize = (v) => {
    if (v === undefined) return undefined;
    if (typeof v === "function") return JSON.stringify("[Function " + (v.name || "anonymous") + "]");
    const s = JSON.stringify(v);
    return s === undefined ? JSON.stringify(String(v)) : s;
  };
})();`;

/** The previous cells' names as global `let`s; each restored on its own, so one bad entry spoils nothing else. */
function restoreScript(state: StateEntry[]): string {
  if (state.length === 0) return "";
  const lines = [`let ${state.map((e) => e.name).join(", ")};`];
  for (const e of state) {
    const value = "json" in e ? `JSON.parse(${JSON.stringify(e.json)})` : `(${e.source}\n)`;
    lines.push(`try { ${e.name} = ${value}; } catch {}`);
  }
  return lines.join("\n");
}

/**
 * The cell as the body of an async function, prefixed on its first line (so error line numbers
 * are the cell's own) with a closure that can read every name the cell may have set.
 */
function cellScript(code: string, names: string[]): string {
  const reads = names.map((n) => `try { o.push([${JSON.stringify(n)}, ${n}]); } catch {}`).join(" ");
  return `globalThis.${RUN} = (async () => { globalThis.__cm_capture = () => { const o = []; ${reads} return o; }; ${code}\n})();`;
}

function readResult(vm: QuickJSContext, limits: CellLimits): { value: unknown } | { error: CellError } | undefined {
  const run = vm.getProp(vm.global, RUN);
  const state = vm.getPromiseState(run);
  run.dispose();
  if (state.type !== "fulfilled") {
    if (state.type === "rejected") state.error.dispose();
    return undefined;
  }
  const serialize = vm.getProp(vm.global, "__cm_serialize");
  const out = vm.callFunction(serialize, vm.undefined, state.value);
  serialize.dispose();
  state.value.dispose();
  if (out.error) return { error: errorFrom(vm, out.error, undefined) };
  const json = vm.dump(out.value) as string | undefined;
  out.value.dispose();
  if (json === undefined) return undefined;
  if (json.length > limits.maxResultChars) {
    return {
      error: {
        name: "ResultTooLargeError",
        message: `the cell returned ${json.length} characters of JSON (limit ${limits.maxResultChars}): return less, or keep it in a variable and return a summary`,
      },
    };
  }
  return { value: JSON.parse(json) };
}

function capture(
  vm: QuickJSContext,
  limits: CellLimits,
): { state?: StateEntry[]; notPersisted: string[]; error?: CellError } {
  const snapshot = vm.getProp(vm.global, "__cm_snapshot");
  const max = vm.newNumber(limits.maxStateChars);
  const out = vm.callFunction(snapshot, vm.undefined, vm.undefined, max);
  snapshot.dispose();
  max.dispose();
  if (out.error) {
    const error = errorFrom(vm, out.error, undefined);
    return {
      notPersisted: [],
      error: {
        name: "StateError",
        message: `the session's state could not be saved (${error.message}); the previous state is kept`,
      },
    };
  }
  const parsed = JSON.parse(vm.getString(out.value)) as
    { state: StateEntry[]; notPersisted: string[] } | { tooLarge: true };
  out.value.dispose();
  if ("tooLarge" in parsed) {
    return {
      notPersisted: [],
      error: {
        name: "StateTooLargeError",
        message: `the session's top-level values exceed ${limits.maxStateChars} characters of JSON, so this cell's state was not saved; the previous state is kept`,
      },
    };
  }
  return parsed;
}
