/** Hosts always answered: a local MCP server (Claude Desktop, an IDE) works with no settings. */
const LOCALHOST = ["localhost", "127.0.0.1", "[::1]"];

export interface TransportGuardOptions {
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** no credentials are asked for (auth off): the Host is checked even without `allowedHosts` */
  open: boolean;
}

/** The hostname of a Host header or URL host, port dropped, IPv6 kept in brackets, lower case. */
function hostnameOf(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1) || value;
  return value.split(":")[0]!;
}

function matches(hostname: string, allowed: string[]): boolean {
  return allowed.some((a) => {
    const pattern = a.toLowerCase();
    return pattern.startsWith("*.") ? hostname.endsWith(pattern.slice(1)) : hostnameOf(pattern) === hostname;
  });
}

/**
 * DNS-rebinding protection for `/mcp` (the MCP SDK's handler checks neither header): why the
 * request is refused, or undefined. A page on another site whose name an attacker points at a
 * local server sends that site's Host and Origin; so, as agno does, a server without
 * credentials answers only localhost and the hosts it lists, and any server refuses a browser
 * Origin that is neither its own nor allowed. Clients that are not browsers send no Origin.
 */
export function transportRefusal(
  request: { url: string; host?: string; origin?: string },
  options: TransportGuardOptions,
): string | undefined {
  const hosts = [...LOCALHOST, ...(options.allowedHosts ?? [])];
  const url = new URL(request.url);
  const hostname = hostnameOf(request.host ?? url.host);
  if ((options.open || options.allowedHosts !== undefined) && !matches(hostname, hosts))
    return `host ${hostname} is not allowed to reach the MCP server`;
  const origin = request.origin;
  if (origin === undefined) return undefined;
  if (options.allowedOrigins?.includes(origin)) return undefined;
  let originUrl: URL | undefined;
  try {
    originUrl = new URL(origin);
  } catch {
    originUrl = undefined;
  }
  const sameOrigin = originUrl !== undefined && originUrl.origin === url.origin;
  if (originUrl && (sameOrigin || matches(hostnameOf(originUrl.host), hosts))) return undefined;
  return `origin ${origin} is not allowed to reach the MCP server`;
}
