import { execFileSync, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { JwtVerifier } from "../../src/os/auth/jwt.js";

const root = resolve(import.meta.dirname, "../..");

/** `npm run token` mints a token that the printed JWT_VERIFICATION_KEYS verify, with its claims. */
it("mints a development token its printed keys verify", async () => {
  const out = execFileSync(
    process.execPath,
    [
      resolve(root, "node_modules/tsx/dist/cli.mjs"),
      "scripts/token.ts",
      "--sub",
      "ann",
      "--scopes",
      "sessions:read,agents:*:run",
      "--aud",
      "agno",
    ],
    { cwd: root, encoding: "utf8" },
  );
  const keys = JSON.parse(/JWT_VERIFICATION_KEYS='(.+)'/.exec(out)![1]!) as unknown[];
  const token = /TOKEN=(\S+)/.exec(out)![1]!;
  const principal = await new JwtVerifier(keys, { audience: "agno" }).verify(token);
  expect(principal).toEqual({
    userId: "ann",
    scopes: ["sessions:read", "agents:*:run"],
    admin: false,
    sessionId: undefined,
    expiresAt: expect.any(Number),
  });
  await expect(new JwtVerifier(keys, { audience: "other" }).verify(token)).rejects.toThrow(/token rejected/);
});

it("prints its usage for `npm run token -- --help` and exits 0; an unknown option exits 2 with the usage", () => {
  const help = spawnSync("npm", ["run", "--silent", "token", "--", "--help"], { cwd: root, encoding: "utf8" });
  expect({ status: help.status, stderr: help.stderr }).toEqual({ status: 0, stderr: "" });
  expect(help.stdout).toMatch(/^Usage: npm run token -- /);
  expect(help.stdout).toMatch(/--scopes/);
  expect(help.stdout).not.toMatch(/TOKEN=/);
  const wrong = spawnSync(
    process.execPath,
    [resolve(root, "node_modules/tsx/dist/cli.mjs"), "scripts/token.ts", "--subject", "ann"],
    { cwd: root, encoding: "utf8" },
  );
  expect(wrong.status).toBe(2);
  expect(wrong.stderr).toMatch(/--subject/);
  expect(wrong.stderr).toMatch(/Usage: npm run token/);
  expect(wrong.stderr).not.toMatch(/\n\s+at /);
  expect(wrong.stdout).toBe("");
});
