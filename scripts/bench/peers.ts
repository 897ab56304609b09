/**
 * The peer frameworks the agent figures compare with (and pg-boss, for the queue figure) live in
 * scripts/bench/peers: a package of their own with a committed lock file, installed on demand, so
 * the product's `npm ci` stays lean.
 * They are loaded with a dynamic import of a file URL under that folder; their types never reach
 * tsc, so the adapters (frameworks.ts) describe the few members they use with local interfaces.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PEERS_DIR = fileURLToPath(new URL("./peers/", import.meta.url));
const MODULES = join(PEERS_DIR, "node_modules");
/** npm writes node_modules/.package-lock.json last: without it an install did not finish. */
const INSTALLED_MARKER = join(MODULES, ".package-lock.json");

/** Installed and no older than the lock file (a version bump in the lock reinstalls). */
function installed(): boolean {
  return (
    existsSync(INSTALLED_MARKER) &&
    statSync(INSTALLED_MARKER).mtimeMs >= statSync(join(PEERS_DIR, "package-lock.json")).mtimeMs
  );
}

/**
 * `npm ci --prefix scripts/bench/peers` when the peers are not installed yet (a large download,
 * done once). Returns why not when it fails (no registry, say): the peers are then skipped.
 */
export function ensurePeers(log: (message: string) => void): { ok: true } | { ok: false; reason: string } {
  if (installed()) return { ok: true };
  log(`installing the peer frameworks: npm ci --prefix scripts/bench/peers --no-audit --no-fund (once; ~40 s)`);
  const result = spawnSync("npm", ["ci", "--prefix", PEERS_DIR, "--no-audit", "--no-fund"], {
    stdio: ["ignore", 2, 2],
  });
  if (result.error) return { ok: false, reason: `npm ci in scripts/bench/peers failed: ${result.error.message}` };
  if (result.status !== 0)
    return { ok: false, reason: `npm ci in scripts/bench/peers exited with ${result.status ?? result.signal}` };
  return installed()
    ? { ok: true }
    : { ok: false, reason: "npm ci in scripts/bench/peers left no node_modules/.package-lock.json" };
}

interface Manifest {
  version: string;
  exports?: unknown;
  module?: string;
  main?: string;
}

function manifest(pkg: string): Manifest {
  return JSON.parse(readFileSync(join(MODULES, pkg, "package.json"), "utf8")) as Manifest;
}

/** The installed version of a peer package. */
export const peerVersion = (pkg: string): string => manifest(pkg).version;

/** Node's conditions for `import` (object order decides, as in Node's resolver). */
const CONDITIONS = new Set(["node", "import", "module-sync", "default"]);

function target(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  if (Array.isArray(entry)) {
    for (const e of entry) {
      const t = target(e);
      if (t) return t;
    }
    return undefined;
  }
  if (entry && typeof entry === "object") {
    for (const [condition, value] of Object.entries(entry)) {
      if (!CONDITIONS.has(condition)) continue;
      const t = target(value);
      if (t) return t;
    }
  }
  return undefined;
}

/** `@scope/pkg/sub` -> the file URL of its ESM entry under scripts/bench/peers/node_modules (package `exports`). */
export function peerUrl(specifier: string): string {
  const parts = specifier.split("/");
  const pkg = (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
  const subpath = `.${specifier.slice(pkg.length)}`;
  const m = manifest(pkg);
  let file: string | undefined;
  if (m.exports !== undefined) {
    const exp = m.exports;
    const bySubpath =
      exp && typeof exp === "object" && !Array.isArray(exp) && Object.keys(exp).some((k) => k.startsWith("."));
    file = target(bySubpath ? (exp as Record<string, unknown>)[subpath] : subpath === "." ? exp : undefined);
  } else if (subpath === ".") {
    file = m.module ?? m.main ?? "index.js";
  }
  if (!file) throw new Error(`${specifier}: no ESM entry in ${pkg}'s package.json`);
  return pathToFileURL(join(MODULES, pkg, file)).href;
}

/** Imports a peer package from scripts/bench/peers; `T` describes the members the bench uses. */
export async function importPeer<T>(specifier: string): Promise<T> {
  return (await import(peerUrl(specifier))) as T;
}
