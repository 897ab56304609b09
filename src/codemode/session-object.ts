import { DurableObject } from "cloudflare:workers";
import { loadedSandboxIsolation, runInLoadedSandbox } from "./loaded-sandbox.js";
import type { SandboxIsolation } from "./sandbox-worker.js";
import { quickJS } from "./quickjs.js";
import { runCell, sandboxFailure, type CellLimits, type CellResult, type StateEntry } from "./sandbox.js";
import type { ToolHost } from "./code-mode.js";

/** What the object reads from its environment. */
interface SessionEnv {
  /** the Worker Loader binding (`[[worker_loaders]]`): when bound, cells run in a loaded sandbox Worker */
  CODEMODE_LOADER?: WorkerLoader;
}

/**
 * One CodeMode session: runs its cells one at a time, in arrival order, each in a fresh QuickJS
 * sandbox, and keeps the session's top-level names in storage, so they outlive the object's
 * memory (eviction, restart, redeploy). With `CODEMODE_LOADER` bound, QuickJS runs inside a
 * Worker loaded for this session with no network; without it, inside this object's isolate.
 */
export class CodeModeSession extends DurableObject<SessionEnv> {
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

  /** Where this session's cells run and, in a loaded sandbox, whether `probeUrl` is reachable from there (it must not be). */
  async isolation(probeUrl: string): Promise<SandboxIsolation> {
    const loader = this.env.CODEMODE_LOADER;
    return loader ? loadedSandboxIsolation(loader, this.ctx.id.toString(), probeUrl) : { where: "object" };
  }

  /** Forgets every variable of the session. */
  async reset(): Promise<void> {
    await this.ctx.storage.delete("state");
  }

  private async runNow(
    code: string,
    toolNames: string[],
    host: ToolHost,
    limits?: Partial<CellLimits>,
  ): Promise<CellResult> {
    const state = await this.state();
    const loader = this.env.CODEMODE_LOADER;
    let outcome;
    try {
      outcome = loader
        ? await runInLoadedSandbox(loader, this.ctx.id.toString(), { code, state, toolNames, limits }, host)
        : await runCell(await quickJS.get(), {
            code,
            state,
            toolNames,
            callTool: (name, args) => host.call(name, args),
            limits,
          });
    } catch (error) {
      // The interpreter (a WebAssembly trap) or the loaded Worker failed: the next cell gets a fresh instance.
      if (!loader) quickJS.forget();
      return sandboxFailure(error);
    }
    await this.ctx.storage.put("state", outcome.state);
    return outcome.cell;
  }
}
