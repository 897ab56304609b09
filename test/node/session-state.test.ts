import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleAssistant } from "../../src/example/assistant.js";
import { applyStateChanges, stateChanges } from "../../src/db/state-changes.js";
import type { Db } from "../../src/db/port.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/** Session state written by overlapping runs of one session, through the SDK (issue 15: lost updates). */
const stores: Array<[string, () => { db: Db; close(): Promise<void> }]> = [
  ...dbTargets().map((target) => [target.name, () => openTestDb(target)] as [string, () => TestDb]),
  ["memory", memoryTestDb],
];
describe.each(stores)("session state on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  beforeAll(async () => {
    t = open();
    await t.db.init();
  });
  afterAll(() => t.close());

  // The port-level merge (updateSessionState) is in the Db contract (test/support/db-contract.ts).
  it("keeps every note of four save_note runs continued at once", async () => {
    const notes = ["buy milk", "call Ann", "water plants", "pay rent"];
    const { model } = await scriptedModel([
      ...notes.map((note, i) => ({ toolCalls: [{ id: `note-${i}`, name: "save_note", arguments: { note } }] })),
      ...notes.map(() => ({ text: "Saved." })),
    ]);
    const agent = exampleAssistant(model).withDb(t.db);
    const sessionId = `notes-${crypto.randomUUID()}`;
    const paused = [];
    for (const note of notes) paused.push(await agent.run(`remember: ${note}`, { sessionId, userId: "ann" }));
    expect(paused.map((p) => p.status)).toEqual(["PAUSED", "PAUSED", "PAUSED", "PAUSED"]);
    const done = await Promise.all(
      paused.map((p) =>
        agent.continueRun(p.run_id, { requirements: [{ id: p.requirements[0]!.id, confirmed: true }], userId: "ann" }),
      ),
    );
    expect(done.map((d) => d.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED", "COMPLETED"]);
    const stored = (await t.db.getSession(sessionId))!.record.session_data!.session_state as { notes: string[] };
    expect([...stored.notes].sort()).toEqual([...notes].sort());
  });

  it("stores a run's session_state in its session, merged over the stored one (agno's precedence)", async () => {
    const { model } = await scriptedModel([{ text: "Hi." }, { text: "Hi again." }]);
    const agent = exampleAssistant(model).withDb(t.db);
    const first = await agent.run("hi", { sessionState: { topic: "travel", prefs: { lang: "fr" } } });
    expect((await t.db.getSession(first.session_id))!.record.session_data!.session_state).toEqual({
      topic: "travel",
      prefs: { lang: "fr" },
    });
    await agent.run("again", { sessionId: first.session_id, sessionState: { prefs: { units: "metric" } } });
    expect((await t.db.getSession(first.session_id))!.record.session_data!.session_state).toEqual({
      topic: "travel",
      prefs: { lang: "fr", units: "metric" },
    });
  });
});

describe("stateChanges / applyStateChanges", () => {
  it("replays a run's changes over a state others changed meanwhile", () => {
    const base = { a: 1, list: [1], obj: { k: "v" } };
    const changes = stateChanges(base, { a: 2, list: [1, 2], obj: { k: "v", j: "w" } });
    expect(applyStateChanges({ a: 1, list: [1, 9], obj: { k: "other" }, more: true }, changes)).toEqual({
      a: 2,
      list: [1, 9, 2],
      obj: { k: "other", j: "w" },
      more: true,
    });
    // A list changed otherwise than by appending is set: the run's value wins that key.
    expect(applyStateChanges({ list: [1, 9] }, stateChanges({ list: [1, 2] }, { list: [2] }))).toEqual({ list: [2] });
    expect(stateChanges(base, base)).toEqual([]);
  });
});
