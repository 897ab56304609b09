// Lint: eslint's and typescript-eslint's recommended rules, the few type-aware rules that catch real
// bugs (a promise nobody awaits), and the layering rule: domain code (agents, queue, scheduler, tools,
// models) knows no HTTP, no Workers runtime and no Postgres adapter, only the ports it is given.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const layering = {
  paths: [
    { name: "hono", message: "domain code is HTTP-free: routes live in src/os" },
    { name: "cloudflare:workers", message: "domain code runs outside Workers too: Workers glue lives in src/worker" },
  ],
  patterns: [
    { group: ["hono/*", "@hono/*"], message: "domain code is HTTP-free: routes live in src/os" },
    {
      regex: "^(\\.\\./)+(os|worker|db/postgres)(/|\\.js$|$)",
      message: "domain code depends on ports (src/db/port.ts), not on src/os, src/worker or src/db/postgres",
    },
  ],
};

export default defineConfig(
  {
    ignores: [
      "node_modules/",
      "dist/",
      // a user's project (its own tsconfig, agno-edge from the packed tarball): test/node/example-project.e2e.test.ts type-checks it
      "examples/",
      "scripts/bench/peers/node_modules/",
      "src/codemode/generated/",
      "**/.wrangler/",
      "tmp/",
      ".data/",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      // three programs: the Worker's (tsconfig.json), Node's (tsconfig.node.json: scripts, Node tests) and the browser console's (ui/tsconfig.json)
      parserOptions: {
        project: ["./tsconfig.json", "./tsconfig.node.json", "./ui/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // `const { secret: _secret, ...rest } = row` drops a field: the underscore says "unused on purpose",
      // as tsc's noUnusedLocals/noUnusedParameters (which already check the rest) read it.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Input validation here rejects control characters on purpose (/[\x00-\x1f]/), the very thing
      // this rule reports.
      "no-control-regex": "off",
    },
  },
  // A model that is not configured fails on the first read of its stream: a generator that throws
  // before any yield is the plainest way to say so.
  { files: ["src/models/unconfigured-model.ts", "src/models/lazy-model.ts"], rules: { "require-yield": "off" } },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
  {
    files: [
      "src/agent/**",
      "src/queue/**",
      "src/scheduler/**",
      "src/tools/**",
      "src/models/**",
      "src/memory/**",
      "src/metrics/**",
      "src/evals/**",
      "src/tracing/**",
    ],
    rules: { "no-restricted-imports": ["error", layering] },
  },
  // Built-in toolkits run on Workers: besides the layering, no Node built-ins.
  {
    files: ["src/toolkits/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: layering.paths,
          patterns: [
            ...layering.patterns,
            { regex: "^node:", message: "toolkits run on Workers: fetch and Web APIs only" },
          ],
        },
      ],
    },
  },
);
