import { ESLint } from "eslint";
import { resolve } from "node:path";
import tseslint from "typescript-eslint";
import { expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** A module that reaches into every layer domain code must not know, and into one it may (a port). */
const PROBE = `
import { Hono } from "hono";
import { createRoute } from "@hono/zod-openapi";
import { DurableObject } from "cloudflare:workers";
import { defineRoute } from "../os/route.js";
import { JobQueueObject } from "../worker/job-queue-object.js";
import { PostgresDb } from "../db/postgres/postgres-db.js";
import type { Db } from "../db/port.js";
export type { Db };
export const all = [Hono, createRoute, DurableObject, defineRoute, JobQueueObject, PostgresDb];
`;

/** The repository's eslint.config.js, without type information (the probe is in no tsconfig). */
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

async function restrictedImports(path: string): Promise<string[]> {
  const [result] = await eslint.lintText(PROBE, { filePath: resolve(root, path) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages
    .filter((m) => m.ruleId === "no-restricted-imports")
    .map((m) => /'([^']+)'/.exec(m.message)![1]!);
}

/** `npm run lint` keeps HTTP, the Workers runtime and the Postgres adapter out of the domain code. */
it.each([
  "src/agent",
  "src/queue",
  "src/scheduler",
  "src/tools",
  "src/models",
  "src/memory",
  "src/metrics",
  "src/evals",
  "src/tracing",
])("%s may not import hono, cloudflare:workers, src/os, src/worker or src/db/postgres", async (dir) => {
  expect(await restrictedImports(`${dir}/layering-probe.ts`)).toEqual([
    "hono",
    "@hono/zod-openapi",
    "cloudflare:workers",
    "../os/route.js",
    "../worker/job-queue-object.js",
    "../db/postgres/postgres-db.js",
  ]);
});

it("the HTTP layer (src/os) and the Worker glue (src/worker) may import them", async () => {
  expect(await restrictedImports("src/os/layering-probe.ts")).toEqual([]);
  expect(await restrictedImports("src/worker/layering-probe.ts")).toEqual([]);
});

it("src/toolkits (run on Workers) may import neither the HTTP, Workers or Postgres layers nor Node built-ins", async () => {
  const [result] = await eslint.lintText(
    `${PROBE}\nimport { readFile } from "node:fs/promises";\nexport { readFile };\n`,
    {
      filePath: resolve(root, "src/toolkits/web-fetch/layering-probe.ts"),
    },
  );
  const refused = result!.messages
    .filter((m) => m.ruleId === "no-restricted-imports")
    .map((m) => /'([^']+)'/.exec(m.message)![1]!);
  expect(refused).toEqual([
    "hono",
    "@hono/zod-openapi",
    "cloudflare:workers",
    "../os/route.js",
    "../worker/job-queue-object.js",
    "../db/postgres/postgres-db.js",
    "node:fs/promises",
  ]);
});
