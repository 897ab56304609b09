/**
 * `npm run dev`: this repository's example AgentOS (wrangler.toml, src/index.ts), served by the same
 * code as a user's `npx agno-edge dev` (src/cli/dev.ts). Arguments go to `wrangler dev`.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runDev } from "../src/cli/dev.js";

runDev({ root: resolve(dirname(fileURLToPath(import.meta.url)), ".."), args: process.argv.slice(2) });
