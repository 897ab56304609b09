/**
 * `npm run build:ui`: the browser console (ui/) bundled into dist/ui/, which wrangler.toml's
 * `[assets]` serves and the Worker answers at `/ui` (src/worker/console-page.ts). One minified
 * script and one stylesheet, named after a hash of their content so a deployment may cache them
 * forever, and index.html referencing them: no inline script or style, so the page's
 * Content-Security-Policy can forbid both. Run before dev, test, typecheck, build and deploy.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "ui");

/** Where the page is served: its assets are referenced by absolute path under it. */
export const CONSOLE_PATH = "/ui";

const hashed = (name: string, ext: string, content: string) =>
  `${name}-${createHash("sha256").update(content).digest("hex").slice(0, 10)}.${ext}`;

/** Builds the page into `outDir` (default dist/ui) and returns the file names written. */
export async function buildUi(outDir = join(root, "dist/ui")): Promise<string[]> {
  const bundled = await build({
    entryPoints: [join(source, "src/main.tsx")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    legalComments: "none",
    logLevel: "error",
  });
  const js = bundled.outputFiles[0]!.text;
  const css = (
    await build({
      entryPoints: [join(source, "src/styles.css")],
      bundle: true,
      write: false,
      minify: true,
      logLevel: "error",
    })
  ).outputFiles[0]!.text;
  const files = { js: hashed("console", "js", js), css: hashed("console", "css", css) };
  const html = readFileSync(join(source, "index.html"), "utf8")
    .replace("%SCRIPT%", `${CONSOLE_PATH}/${files.js}`)
    .replace("%STYLE%", `${CONSOLE_PATH}/${files.css}`);
  if (html.includes("%")) throw new Error("ui/index.html has a placeholder build-ui.ts does not fill");
  const written: Record<string, string> = { [files.js]: js, [files.css]: css, "index.html": html };
  mkdirSync(outDir, { recursive: true });
  // Old hashed files go; an unchanged one is not rewritten (a watching dev server would reload for nothing).
  for (const name of readdirSync(outDir)) if (!(name in written)) rmSync(join(outDir, name), { recursive: true });
  for (const [name, content] of Object.entries(written)) {
    let current: string | undefined;
    try {
      current = readFileSync(join(outDir, name), "utf8");
    } catch {
      // not built yet
    }
    if (current !== content) writeFileSync(join(outDir, name), content);
  }
  return Object.keys(written);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildUi();
  process.stderr.write(`[build:ui] dist/ui/ (${files.join(", ")})\n`);
}
