import type { HostLookup } from "./safe-fetch.js";

/**
 * A DNS lookup for safeFetcher where the runtime has one (Node: node:dns/promises), else
 * undefined: workerd cannot resolve names and blocks private targets itself. The module name is
 * a variable so the Workers bundle never tries to include it, and it is imported on first use.
 */
export function runtimeHostLookup(): HostLookup | undefined {
  const g = globalThis as { navigator?: { userAgent?: string }; process?: { versions?: { node?: string } } };
  if (g.navigator?.userAgent === "Cloudflare-Workers" || !g.process?.versions?.node) return undefined;
  const specifier = "node:dns/promises";
  return async (host) => {
    const dns = (await import(/* @vite-ignore */ specifier)) as {
      lookup(h: string, o: { all: true }): Promise<Array<{ address: string }>>;
    };
    return (await dns.lookup(host, { all: true })).map((a) => a.address);
  };
}
