#!/usr/bin/env node
/**
 * The `agno-edge` command a project that installs the package gets (`npx agno-edge dev`); this
 * repository's `npm run dev` runs the same code (scripts/dev.ts).
 */
import { runDev } from "./dev.js";

const USAGE = `usage: agno-edge dev [wrangler dev flags]

  dev   the AgentOS of ./wrangler.toml on http://localhost:8787 (PORT): embedded Postgres (PGlite,
        data in ./.data) unless DATABASE_URL is set, migrations applied, then wrangler dev.
        Flags such as --config path/wrangler.toml or --test-scheduled go to wrangler dev.`;

const [command, ...args] = process.argv.slice(2);
if (command === "dev") {
  runDev({ root: process.cwd(), args });
} else {
  console.error(
    command === undefined || command === "--help" || command === "-h"
      ? USAGE
      : `unknown command "${command}"\n\n${USAGE}`,
  );
  process.exitCode = command === "--help" || command === "-h" ? 0 : 1;
}
