import { DurableObject } from "cloudflare:workers";
import { quickJS } from "./quickjs.js";
import { runCell, type CellLimits, type CellResult, type StateEntry } from "./sandbox.js";
import type { ToolHost } from "./code-mode.js";

/**
 * One CodeMode session: runs its cells one at a time, in arrival order, each in a fresh QuickJS
 * sandbox, and keeps the session's top-level names in storage, so they outlive the object's
 * memory (eviction, restart, redeploy).
 */
export class CodeModeSession extends DurableObject {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs one cell after every cell sent before it has finished. */
  run(code: string, toolNames: string[], host: ToolHost, limits?: Partial<CellLimits>): Promise<CellResult> {
    const turn = this.tail.then(() => this.runNow(code, toolNames, host, limits));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** The persisted names and how each is kept (for inspection and tests). */
  async state(): Promise<StateEntry[]> {
    return (await this.ctx.storage.get<StateEntry[]>("state")) ?? [];
  }

  /** Forgets every variable of the session. */
  async reset(): Promise<void> {
    await this.ctx.storage.delete("state");
  }

  private async runNow(code: string, toolNames: string[], host: ToolHost, limits?: Partial<CellLimits>): Promise<CellResult> {
    const state = await this.state();
    const qjs = await quickJS.get();
    let outcome;
    try {
      outcome = await runCell(qjs, { code, state, toolNames, callTool: (name, args) => host.call(name, args), limits });
    } catch (error) {
      // The interpreter itself failed (a WebAssembly trap): the next cell gets a fresh instance.
      quickJS.forget();
      const message = error instanceof Error ? error.message : String(error);
      return { logs: "", logsTruncated: false, notPersisted: [], error: { name: "SandboxError", message: `the sandbox failed: ${message}; the session's state is kept` } };
    }
    await this.ctx.storage.put("state", outcome.state);
    return outcome.cell;
  }
}
