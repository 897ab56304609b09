/**
 * Identities the server assigns itself, which a bearer token may never claim as its subject:
 * agno's service accounts (`sa:` prefix), the clients its built-in MCP OAuth server connects
 * (`__oauth__:` prefix), and its scheduler (`__scheduler__`). A token signed by a trusted key
 * but naming one of them would let its holder pass as that principal in run attribution,
 * session ownership and audit, so it is refused rather than rewritten. Matched as agno matches
 * them: case-sensitively, on the exact prefix or the exact name.
 */
const RESERVED_PREFIXES = ["sa:", "__oauth__:"] as const;
const SCHEDULER_PRINCIPAL = "__scheduler__";

export function isReservedPrincipal(userId: unknown): boolean {
  return (
    typeof userId === "string" &&
    (userId === SCHEDULER_PRINCIPAL || RESERVED_PREFIXES.some((prefix) => userId.startsWith(prefix)))
  );
}
