import { z } from "zod";
import type { Tool, ToolContext, ToolHumanInTheLoop } from "./tool.js";

/** Any JSON object: the arguments of a tool whose schema is checked by whoever runs it. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

export interface JsonSchemaToolOptions extends ToolHumanInTheLoop {
  name: string;
  description?: string;
  /** a JSON Schema of the arguments object, shown to the model as given */
  inputSchema: Record<string, unknown>;
  execute: (args: Record<string, unknown>, ctx: ToolContext) => unknown;
  stopAfterToolCall?: boolean;
}

/**
 * A tool described by a JSON Schema rather than a zod schema (a remote MCP server's tool): the
 * model sees the schema unchanged, and the arguments, checked here only to be a JSON object, are
 * validated by the tool's owner, whose error the model reads as the call's answer.
 */
export function jsonSchemaTool(opts: JsonSchemaToolOptions): Tool {
  const { $schema: _drop, ...parameters } = opts.inputSchema;
  return {
    name: opts.name,
    description: opts.description,
    parameters: ANY_OBJECT,
    stopAfterToolCall: opts.stopAfterToolCall ?? false,
    requiresConfirmation: opts.requiresConfirmation,
    requiresApproval: opts.requiresApproval,
    approvalExpiresIn: opts.approvalExpiresIn,
    requiresUserInput: opts.requiresUserInput,
    userInputFields: opts.userInputFields,
    externalExecution: opts.externalExecution,
    execute: (args, ctx) => opts.execute(args as Record<string, unknown>, ctx),
    definition() {
      return { name: opts.name, description: opts.description, parameters };
    },
  };
}
