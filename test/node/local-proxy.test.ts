import { Pool } from "@neondatabase/serverless";
import { expect, it } from "vitest";
import { TerminateWatch } from "../../src/cli/local/terminate-watch.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";

it("closes a connection after the client's Terminate, so ended pools never pile up", async () => {
  const target = dbTargets()[0]!;
  openTestDb(target); // configures the driver for the local proxy
  for (let i = 0; i < 80; i++) {
    const pool = new Pool({ connectionString: target.url });
    expect((await pool.query("SELECT $1::int AS i", [i])).rows[0]).toEqual({ i });
    await pool.end();
  }
});

it("finds Terminate in a split byte stream and nowhere else", () => {
  const startup = [0, 0, 0, 9, 0, 3, 0, 0, 0];
  const query = [0x51, 0, 0, 0, 9, 0x58, 0, 0, 0, 4]; // 'Q' whose text holds the bytes of a Terminate
  const terminate = [0x58, 0, 0, 0, 4];
  const watch = new TerminateWatch();
  expect(watch.feed(new Uint8Array([...startup, ...query]))).toBe(false);
  expect(watch.feed(new Uint8Array(terminate.slice(0, 2)))).toBe(false);
  expect(watch.feed(new Uint8Array(terminate.slice(2)))).toBe(true);
  const split = new TerminateWatch();
  split.feed(new Uint8Array([0, 0, 0, 8, 4, 210, 22, 47])); // SSLRequest first
  split.feed(new Uint8Array(startup));
  expect(split.feed(new Uint8Array([0x58, 0, 0]))).toBe(false);
  expect(split.feed(new Uint8Array([0, 4]))).toBe(true);
});
