import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import type { CodeRunner } from "./code-mode.js";
import { runCell, sandboxFailure, type CellResult, type StateEntry } from "./sandbox.js";

/**
 * A CodeRunner for one process (Node scripts, tests, benches): the same QuickJS sandbox as the
 * CodeModeSession object, with each session's state in memory, lost when the process ends.
 * `loadQuickJS` supplies the interpreter (in Node: `newQuickJSWASMModuleFromVariant(releaseSync)`).
 *
 * @example
 * const runner = memoryCodeRunner(() => newQuickJSWASMModuleFromVariant(releaseSync));
 * const agent = new Agent({ model, tools: [new CodeMode({ tools, runner })] });
 */
export function memoryCodeRunner(loadQuickJS: () => Promise<QuickJSWASMModule>): CodeRunner {
  const states = new Map<string, StateEntry[]>();
  const tails = new Map<string, Promise<unknown>>();
  let qjs: Promise<QuickJSWASMModule> | undefined;
  return {
    run({ sessionId, code, toolNames, host, limits }) {
      const turn = (tails.get(sessionId) ?? Promise.resolve()).then(async (): Promise<CellResult> => {
        qjs ??= loadQuickJS();
        try {
          const { cell, state } = await runCell(await qjs, {
            code,
            state: states.get(sessionId) ?? [],
            toolNames,
            callTool: (n, a) => host.call(n, a),
            limits,
          });
          states.set(sessionId, state);
          return cell;
        } catch (error) {
          // As in the CodeModeSession object: the next cell gets a fresh interpreter.
          qjs = undefined;
          return sandboxFailure(error);
        }
      });
      tails.set(
        sessionId,
        turn.catch(() => undefined),
      );
      return turn;
    },
  };
}
