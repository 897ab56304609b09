import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import { LocalMediaStorage } from "../../src/offload/media-local-storage.js";
import { Team } from "../../src/team/index.js";
import { scriptedModel } from "../support/agent-kit.js";
import { syntheticJpeg } from "../support/media-jpeg.js";
import { scriptedAgent } from "../support/team-kit.js";

const JPEG = syntheticJpeg(20_000);
const B64 = Buffer.from(JPEG).toString("base64");
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Media sent to a team reach its members (as agno passes them on); a media storage given to the team covers the members' rows too. */
it("passes the team's media to the member, and withMediaStorage keeps every row to references", async () => {
  const dir = await mkdtemp(join(tmpdir(), "team-media-"));
  dirs.push(dir);
  const storage = new LocalMediaStorage({ directory: dir });
  const db = new MemoryDb();
  const viewer = await scriptedAgent("viewer", [{ text: "A picture." }]);
  const { model } = await scriptedModel([
    { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "viewer", task: "Describe it" } }] },
    { text: "It is a picture." },
  ]);
  const team = new Team({ id: "t", model, members: [viewer.agent], db }).withMediaStorage(storage);
  expect(team.mediaStorage).toBe(storage);
  const out = await team.run("What is this?", { media: [{ data: JPEG, mimeType: "image/jpeg" }] });
  expect(out.status).toBe("COMPLETED");

  const sent = JSON.stringify((await viewer.requests())[0]!.body.messages);
  expect(sent).toContain(`data:image/jpeg;base64,${B64.slice(0, 64)}`);
  for (const runId of [out.run_id, out.member_responses![0]!.run_id]) {
    const stored = JSON.stringify((await db.getRun(runId))!.run_data);
    expect(stored).not.toContain(B64.slice(1000, 1064));
    expect(stored).toContain("media_reference");
  }
});
