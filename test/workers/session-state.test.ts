import { describe, expect, it } from "vitest";
import { call, form, modelEnv } from "./worker-client.js";

/** Session state written by runs of one session that overlap (issue 15: lost updates on `session_state`). */
describe("session state over HTTP", () => {
  it("keeps every note of four save_note runs continued at once in one session", async () => {
    const notes = ["buy milk", "call Ann", "water plants", "pay rent"];
    const { env: e } = await modelEnv([
      ...notes.map((note, i) => ({ toolCalls: [{ id: `note-${i}`, name: "save_note", arguments: { note } }] })),
      ...notes.map(() => ({ text: "Saved." })),
    ]);
    const paused: Array<{ run_id: string; session_id: string; tools: Array<Record<string, unknown>> }> = [];
    let sessionId: string | undefined;
    for (const note of notes) {
      const res = await call(
        "/agents/assistant/runs",
        form({ message: `remember: ${note}`, stream: "false", ...(sessionId ? { session_id: sessionId } : {}) }),
        e,
      );
      expect(res.body).toMatchObject({ status: "PAUSED" });
      sessionId = res.body.session_id;
      paused.push(res.body);
    }
    const continued = await Promise.all(
      paused.map((p) =>
        call(
          `/agents/assistant/runs/${p.run_id}/continue`,
          form({
            tools: JSON.stringify(p.tools.map((t) => ({ ...t, confirmed: true }))),
            session_id: p.session_id,
            stream: "false",
          }),
          e,
        ),
      ),
    );
    for (const c of continued) {
      expect(c.status).toBe(200);
      expect(c.body).toMatchObject({ status: "COMPLETED" });
      expect(c.body.tools.at(-1).result).toMatch(/^saved/);
    }
    const session = await call(`/sessions/${sessionId}`, {}, e);
    expect([...session.body.session_state.notes].sort()).toEqual([...notes].sort());
  });

  it("stores the session_state a run request carries, merged over what the session held", async () => {
    const { env: e } = await modelEnv([{ text: "Hello." }, { text: "Hello again." }]);
    const first = await call(
      "/agents/assistant/runs",
      form({
        message: "hi",
        stream: "false",
        session_state: JSON.stringify({ topic: "travel", prefs: { lang: "fr" } }),
      }),
      e,
    );
    expect(first.body).toMatchObject({ status: "COMPLETED" });
    expect((await call(`/sessions/${first.body.session_id}`, {}, e)).body.session_state).toEqual({
      topic: "travel",
      prefs: { lang: "fr" },
    });
    const second = await call(
      "/agents/assistant/runs",
      form({
        message: "again",
        stream: "false",
        session_id: first.body.session_id,
        session_state: JSON.stringify({ prefs: { units: "metric" } }),
      }),
      e,
    );
    expect(second.body).toMatchObject({ status: "COMPLETED" });
    expect((await call(`/sessions/${first.body.session_id}`, {}, e)).body.session_state).toEqual({
      topic: "travel",
      prefs: { lang: "fr", units: "metric" },
    });
  });
});
