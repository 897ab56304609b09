import { z } from "zod";
import type { Tool } from "../../tools/tool.js";
import type { AguiTool } from "./agui-input.js";

/** Whatever the frontend's schema says: the frontend runs the tool and checks its own arguments. */
const anyArguments = z.record(z.string(), z.unknown());

/**
 * The frontend's tools as tools of the run that the caller executes (agno's parse_client_tools):
 * the model sees the frontend's JSON Schema, and calling one pauses the run until the frontend
 * sends its result back.
 */
export function clientTools(tools: readonly AguiTool[]): Tool[] {
  return tools.map((t) => {
    const parameters = t.parameters ?? { type: "object", properties: {} };
    return {
      name: t.name,
      description: t.description,
      parameters: anyArguments,
      stopAfterToolCall: false,
      externalExecution: true,
      definition: () => ({ name: t.name, description: t.description, parameters }),
    };
  });
}
