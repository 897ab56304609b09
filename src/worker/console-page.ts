/**
 * The browser console (ui/, built into dist/ui by `npm run build:ui`) at `/ui`, from the Worker's
 * static assets (wrangler.toml's `[assets]`, bound as ASSETS). The page is public and holds no
 * data: everything it shows it asks the API for with the signed-in credential.
 *
 * The assets are served under `/ui` although they sit at the root of the assets folder, so the
 * Worker runs first for every request (`run_worker_first = true`): the API keeps `/`, and only
 * `/ui` paths reach the assets.
 */

export const CONSOLE_PATH = "/ui";

/**
 * Scripts, styles and requests from the Worker's own origin only: no inline script or style
 * (the build emits none), no framing, no plugins. Images may be blob: URLs (the files a user
 * attaches, shown back before they are sent) and data: URLs (the page's empty icon).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The console's answer to a GET or HEAD under `/ui`, or undefined for any other request. */
export async function consolePage(request: Request, assets: Fetcher): Promise<Response | undefined> {
  const url = new URL(request.url);
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  if (url.pathname !== CONSOLE_PATH && !url.pathname.startsWith(`${CONSOLE_PATH}/`)) return undefined;
  const rest = url.pathname.slice(CONSOLE_PATH.length);
  const page = rest === "" || rest === "/";
  const asset = new URL(page ? "/index.html" : rest, url);
  const found = await assets.fetch(new Request(asset, { method: request.method, headers: request.headers }));
  const response = new Response(found.body, found);
  const headers = response.headers;
  headers.set("content-security-policy", CONSOLE_CSP);
  headers.set("x-content-type-options", "nosniff");
  headers.set("x-frame-options", "DENY");
  headers.set("referrer-policy", "no-referrer");
  headers.set("cross-origin-opener-policy", "same-origin");
  // index.html names the hashed files of its build: always revalidated; those files never change.
  if (found.ok) headers.set("cache-control", page ? "no-cache" : "public, max-age=31536000, immutable");
  return response;
}

/** `/`'s answer with a Link to the console, when the console is served. */
export function linkingConsole(response: Response): Response {
  const linked = new Response(response.body, response);
  linked.headers.append("link", `<${CONSOLE_PATH}>; rel="console"`);
  return linked;
}
