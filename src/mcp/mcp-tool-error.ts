/** A tool's failure with the words the client's model should see (a route's 4xx `detail`, a bad argument). */
export class McpToolError extends Error {
  override readonly name = "McpToolError";
  constructor(
    message: string,
    readonly status?: number,
    readonly errorId?: string,
  ) {
    super(message);
  }
}
