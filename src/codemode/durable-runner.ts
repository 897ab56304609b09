import { RpcTarget } from "cloudflare:workers";
import type { CodeRunner, ToolHost } from "./code-mode.js";
import type { CodeModeSession } from "./session-object.js";
import type { ToolAnswer } from "./sandbox.js";

/** The tool host as an RPC target: the session object calls back into this Worker for each tool call. */
class ToolHostTarget extends RpcTarget implements ToolHost {
  constructor(private readonly host: ToolHost) {
    super();
  }
  call(name: string, args: unknown): Promise<ToolAnswer> {
    return this.host.call(name, args);
  }
}

/**
 * A CodeRunner that runs each session's cells in its own CodeModeSession Durable Object.
 *
 * @example
 * new CodeMode({ tools, runner: durableCodeRunner(env.CODEMODE_SESSION) })
 */
export function durableCodeRunner(namespace: DurableObjectNamespace<CodeModeSession>): CodeRunner {
  return {
    run({ sessionId, code, toolNames, host, limits }) {
      const session = namespace.get(namespace.idFromName(sessionId));
      return session.run(code, toolNames, new ToolHostTarget(host), limits);
    },
  };
}
