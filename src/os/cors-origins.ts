/**
 * agno's own origins (`AgnoAPISettings.cors_origin_list`): its hosted control plane and agent-ui's
 * development server, allowed by every AgentOS so they can be pointed at it.
 */
export const AGNO_DEFAULT_ORIGINS: readonly string[] = [
  "http://localhost:3000",
  "https://agno.com",
  "https://www.agno.com",
  "https://app.agno.com",
  "https://os-stg.agno.com",
  "https://os.agno.com",
];

/** What is wrong with an allowed origin as written (`scheme://host[:port]`, nothing after), or undefined. */
export function originProblem(origin: string): string | undefined {
  if (origin === "*")
    return "may not be * (requests carry credentials: name each origin, such as https://console.example.com)";
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `has ${JSON.stringify(origin)}, which is not an origin such as https://console.example.com`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `has ${JSON.stringify(origin)}: origins are http(s)`;
  if (url.origin !== origin)
    return `has ${JSON.stringify(origin)}, which is not an origin as a browser sends it (scheme://host[:port]: no path or trailing slash, lower case, no default port): write ${url.origin}`;
  return undefined;
}
