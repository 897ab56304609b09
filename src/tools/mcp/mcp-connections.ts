import type { Client, Tool as McpTool } from "@modelcontextprotocol/client";

/** A connected client, and the tools its server listed, for one server and one set of headers. */
export interface McpConnection {
  client?: Promise<Client>;
  tools?: { list: Promise<McpTool[]>; at: number };
}

/**
 * What this isolate keeps of the MCP servers it talks to, keyed by the server and the headers it
 * is reached with (so a user's token never reaches another user's session), bounded so a stream
 * of distinct tokens cannot grow it without end: the oldest entry goes first.
 */
export class McpConnections {
  private readonly entries = new Map<string, McpConnection>();

  constructor(private readonly max = 64) {}

  get(key: string): McpConnection {
    let entry = this.entries.get(key);
    if (entry) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    entry = {};
    this.entries.set(key, entry);
    while (this.entries.size > this.max) {
      const [oldest, dropped] = this.entries.entries().next().value as [string, McpConnection];
      this.entries.delete(oldest);
      void dropped.client?.then((c) => c.close()).catch(() => undefined);
    }
    return entry;
  }

  /** Forgets `entry`'s client (after a failure): the next call connects again. */
  dropClient(entry: McpConnection, client: Promise<Client>): void {
    if (entry.client !== client) return;
    entry.client = undefined;
    void client.then((c) => c.close()).catch(() => undefined);
  }

  /** Forgets everything (tests; a redeployed server). */
  clear(): void {
    for (const entry of this.entries.values()) void entry.client?.then((c) => c.close()).catch(() => undefined);
    this.entries.clear();
  }
}

/** The isolate's connections: shared by every MCPTools, whichever agent or request built it. */
export const mcpConnections = new McpConnections();
