/**
 * `/components` and `/registry` through the Worker (agno's Studio routes): create an agent as
 * data, edit and publish, guarded writes that race (one wins, the rest get agno's 409
 * version_conflict), tombstone and restore, invalid configs refused with every problem named,
 * and per-user isolation (owner, shared, admin) under JWT.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { scriptModel, type Turn } from "../support/model-script.js";
import { until } from "../support/until.js";
import { isolatedJwt, modelEnv, send } from "./worker-client.js";

/** The queue object runs with the worker's own bindings: its model is the "queue" channel. */
const queueModel = (turns: Turn[]) => scriptModel(env.MODEL_SERVER_URL, turns, { channel: "queue" });

const tag = crypto.randomUUID().slice(0, 8);
const A = `comp-a-${tag}`;
const B = `comp-b-${tag}`;
const SCOPES = [
  "components:read",
  "components:write",
  "components:delete",
  "registry:read",
  "agents:read",
  "agents:run",
  "teams:read",
  "teams:run",
  "workflows:read",
  "workflows:run",
  "config:read",
  "queue:read",
  "schedules:read",
  "schedules:write",
];
type Who = "A" | "B" | "admin";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, admin: {} };
let E: Partial<Env>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read answers' fields freely
type Answer = { status: number; body: any; text: string };

async function req(as: Who, method: string, path: string, body?: unknown, extra: Partial<Env> = {}): Promise<Answer> {
  const res = await send(
    path,
    { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
    { ...E, ...extra },
    {
      ...who[as],
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
  );
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

/**
 * Queues a background run of the component at `path` (e.g. `/agents/x`) as `as`, checks it is
 * accepted (202), and waits for its stored run to reach `status`: that run.
 */
async function inBackground(
  as: Who,
  path: string,
  body: Record<string, unknown>,
  m: Partial<Env>,
  status = "COMPLETED",
): Promise<{ accepted: Answer; run: Answer["body"] }> {
  const accepted = await req(as, "POST", `${path}/runs`, { ...body, stream: false, background: true }, m);
  expect(accepted.status, accepted.text).toBe(202);
  const run = await until(
    () => req(as, "GET", `${path}/runs/${accepted.body.run_id}`, undefined, m).then((r) => r.body),
    (r) => r?.status === status,
    `the background run of ${path} to be ${status}`,
  );
  return { accepted, run };
}

let model = "";

beforeAll(async () => {
  const jwt = await isolatedJwt("components");
  E = jwt.env;
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.admin = await jwt.bearer(`comp-admin-${tag}`, ["agent_os:admin"]);
  const models = await req("A", "GET", "/registry?resource_type=model&limit=100");
  expect(models.status, models.text).toBe(200);
  const first = models.body.data[0];
  model = `${first.metadata.provider}:${first.metadata.model_id}`;
});

describe("/registry", () => {
  it("lists what a stored config may use, in agno's paginated shape", async () => {
    const res = await req("A", "GET", "/registry?limit=100");
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta).toMatchObject({ page: 1, limit: 100, total_count: res.body.data.length });
    const types = new Set(res.body.data.map((r: { type: string }) => r.type));
    expect(types.has("model")).toBe(true);
    expect(types.has("agent")).toBe(true);
    const agent = res.body.data.find((r: { type: string }) => r.type === "agent");
    expect(agent).toMatchObject({ id: expect.any(String), metadata: { id: agent.id } });
    expect((await req("A", "GET", "/registry?resource_type=bogus")).status).toBe(422);
  });
});

describe("/components", () => {
  it("creates an agent as data, edits a draft while the published version keeps serving, publishes and rolls back", async () => {
    const id = `writer-${tag}`;
    const created = await req("A", "POST", "/components", {
      name: "Writer",
      component_id: id,
      component_type: "agent",
      config: { name: "Writer", model, instructions: "v1" },
      stage: "published",
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ component_id: id, component_type: "agent", user_id: A, current_version: 1 });
    expect(created.body).not.toHaveProperty("deleted_at");

    const draft = await req("A", "POST", `/components/${id}/configs`, {
      config: { name: "Writer", model, instructions: "v2" },
      guard: { latest_version: 1 },
    });
    expect(draft.status, draft.text).toBe(201);
    expect(draft.body).toMatchObject({ version: 2, stage: "draft" });
    expect((await req("A", "GET", `/components/${id}/configs/current`)).body.config.instructions).toBe("v1");
    // B sees the published component but not A's draft.
    expect((await req("B", "GET", `/components/${id}`)).status).toBe(200);
    expect((await req("B", "GET", `/components/${id}/configs/2`)).status).toBe(404);
    expect(
      (await req("B", "GET", `/components/${id}/configs`)).body.map((v: { version: number }) => v.version),
    ).toEqual([1]);
    expect((await req("B", "PATCH", `/components/${id}/configs/2`, { notes: "x" })).status).toBe(403);

    const edited = await req("A", "PATCH", `/components/${id}/configs/2`, {
      config: { name: "Writer", model, instructions: "v2 edited" },
    });
    expect(edited.status, edited.text).toBe(200);
    expect((await req("A", "POST", `/components/${id}/configs/2/set-current`)).status).toBe(400);
    const published = await req("A", "PATCH", `/components/${id}/configs/2`, { stage: "published" });
    expect(published.status, published.text).toBe(200);
    expect((await req("A", "GET", `/components/${id}`)).body.current_version).toBe(2);
    const immutable = await req("A", "PATCH", `/components/${id}/configs/2`, { notes: "late" });
    expect(immutable.status).toBe(400);
    const rollback = await req("A", "POST", `/components/${id}/configs/1/set-current`, {
      guard: { current_version: 2 },
    });
    expect(rollback.status, rollback.text).toBe(200);
    expect(rollback.body.current_version).toBe(1);
    // Each write is in the audit trail as A's, with the current version before and after; refusals are not.
    const audit = await req("admin", "GET", `/audit?resource_type=config&limit=50`);
    expect(audit.status, audit.text).toBe(200);
    const mine = (audit.body.data as Array<Record<string, unknown>>).filter(
      (r) => (r.details as { component_id?: string } | null)?.component_id === id,
    );
    expect(mine.map((r) => [r.principal, r.action, r.resource_id, r.before_version, r.after_version])).toEqual([
      [A, "set_current", `${id}@1`, "2", "1"],
      [A, "update", `${id}@2`, "1", "2"],
      [A, "update", `${id}@2`, "1", "1"],
      [A, "create", `${id}@2`, "1", "1"],
    ]);
  });

  it("20 concurrent guarded writes: one 201, nineteen 409 version_conflict naming the stored version, the winner's state stays", async () => {
    const id = `race-${tag}`;
    expect(
      (
        await req("A", "POST", "/components", {
          name: "Race",
          component_id: id,
          component_type: "agent",
          config: { model },
        })
      ).status,
    ).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        req("A", "POST", `/components/${id}/configs`, {
          config: { model, instructions: `writer ${i}` },
          guard: { latest_version: 1 },
        }),
      ),
    );
    const won = answers.filter((a) => a.status === 201);
    const lost = answers.filter((a) => a.status === 409);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const a of lost) {
      expect(a.body.error_id).toBe("version_conflict");
      expect(a.body.detail).toMatch(/latest version is 2, expected 1/);
    }
    const configs = await req("A", "GET", `/components/${id}/configs`);
    expect(configs.body.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(configs.body[0].config).toEqual(won[0]!.body.config);
  });

  it("refuses an invalid config with a 422 naming each problem, and stores nothing", async () => {
    const id = `bad-${tag}`;
    const res = await req("A", "POST", "/components", {
      name: "Bad",
      component_id: id,
      component_type: "team",
      config: {
        model: "nope:not-allowed",
        tools: ["no_such_tool"],
        members: [
          { type: "agent", agent_id: `missing-${tag}` },
          { type: "team", team_id: id },
        ],
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail).toContain("model: nope:not-allowed is not allowed");
    expect(res.body.detail).toContain("unknown tool no_such_tool");
    expect(res.body.detail).toContain(`agent missing-${tag} not found`);
    expect(res.body.detail).toContain("cycle");
    expect((await req("admin", "GET", `/components/${id}?include_deleted=true`)).status).toBe(404);
  });

  it("records team links, refuses deleting a member a live team uses, tombstones and restores", async () => {
    const member = `member-${tag}`;
    const team = `team-${tag}`;
    await req("A", "POST", "/components", {
      name: "Member",
      component_id: member,
      component_type: "agent",
      config: { model },
      stage: "published",
    });
    const t = await req("A", "POST", "/components", {
      name: "Team",
      component_id: team,
      component_type: "team",
      config: { model, members: [{ type: "agent", agent_id: member }] },
      stage: "published",
    });
    expect(t.status, t.text).toBe(201);
    const refused = await req("A", "DELETE", `/components/${member}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error_id: "dependency_conflict" });
    expect(refused.body.detail).toContain(team);

    expect((await req("B", "DELETE", `/components/${team}`)).status).toBe(403);
    expect((await req("A", "DELETE", `/components/${team}?expected_current_version=7`)).status).toBe(409);
    expect((await req("A", "DELETE", `/components/${team}`)).status).toBe(204);
    expect((await req("A", "GET", `/components/${team}`)).status).toBe(404);
    expect((await req("A", "GET", `/components/${team}?include_deleted=true`)).body.deleted_at).toEqual(
      expect.any(Number),
    );
    // The id stays reserved.
    const reuse = await req("A", "POST", "/components", {
      name: "Team",
      component_id: team,
      component_type: "team",
      config: {},
    });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error_id).toBe("component_archived");
    expect((await req("A", "POST", `/components/${team}/restore`)).status).toBe(200);
    expect((await req("A", "POST", `/components/${team}/restore`)).status).toBe(409);
  });

  it("lists by type and stage, each user seeing their own, the published and the shared; admins everything", async () => {
    const mine = `mine-${tag}`;
    await req("B", "POST", "/components", { name: "Mine", component_id: mine, component_type: "workflow", config: {} });
    const ids = async (as: Who, query: string) =>
      (await req(as, "GET", `/components?limit=100&${query}`)).body.data.map(
        (r: { component_id: string }) => r.component_id,
      );
    expect(await ids("B", "component_type=workflow")).toContain(mine);
    expect(await ids("A", "component_type=workflow")).not.toContain(mine);
    expect(await ids("admin", "component_type=workflow&stage=draft")).toContain(mine);
    expect(await ids("B", "stage=published")).not.toContain(mine);
    expect((await req("A", "GET", `/components/${mine}`)).status).toBe(404);
    expect((await req("A", "PATCH", `/components/${mine}`, { name: "x" })).status).toBe(404);
    expect((await req("admin", "PATCH", `/components/${mine}`, { name: "Renamed" })).body.name).toBe("Renamed");
  });

  it("another user reads A's published component but writes none of it; A's drafts and archive stay A's", async () => {
    const pub = `iso-pub-${tag}`;
    const draftOnly = `iso-draft-${tag}`;
    await req("A", "POST", "/components", {
      name: "Pub",
      component_id: pub,
      component_type: "agent",
      config: { model },
      stage: "published",
    });
    await req("A", "POST", `/components/${pub}/configs`, { config: { model, instructions: "draft" } });
    await req("A", "POST", "/components", { name: "D", component_id: draftOnly, component_type: "agent", config: {} });
    const before = await req("A", "GET", `/components/${pub}/configs`);
    expect((await req("B", "POST", `/components/${pub}/configs`, { config: {} })).status).toBe(403);
    expect((await req("B", "DELETE", `/components/${pub}/configs/2`)).status).toBe(403);
    expect((await req("B", "POST", `/components/${pub}/configs/1/set-current`)).status).toBe(403);
    expect((await req("B", "PATCH", `/components/${pub}`, { name: "B's now" })).status).toBe(403);
    expect((await req("B", "GET", `/components/${pub}/configs/current`)).status).toBe(200);
    expect((await req("A", "GET", `/components/${pub}/configs`)).body).toEqual(before.body);
    for (const [method, path] of [
      ["GET", `/components/${draftOnly}`],
      ["GET", `/components/${draftOnly}/configs`],
      ["GET", `/components/${draftOnly}/configs/current`],
      ["GET", `/components/${draftOnly}/configs/1`],
      ["POST", `/components/${draftOnly}/configs`],
      ["DELETE", `/components/${draftOnly}`],
    ] as const)
      expect(
        (await req("B", method, path, method === "POST" ? { config: {} } : undefined)).status,
        `${method} ${path}`,
      ).toBe(404);
    expect((await req("A", "DELETE", `/components/${draftOnly}`)).status).toBe(204);
    expect((await req("B", "POST", `/components/${draftOnly}/restore`)).status).toBe(404);
    expect((await req("B", "GET", `/components/${draftOnly}?include_deleted=true`)).status).toBe(404);
    expect((await req("A", "POST", `/components/${draftOnly}/restore`)).status).toBe(200);
    // The owner's id is not B's: B naming the same component name gets an id of its own.
    const same = await req("B", "POST", "/components", { name: "Pub", component_type: "agent", config: {} });
    expect(same.status, same.text).toBe(201);
    expect(same.body.component_id).toMatch(/^pub-[0-9a-f]{8}$/);
  });

  it("runs a stored agent: its published config for everyone, a draft only for its editor, a named version on request", async () => {
    const id = `runner-${tag}`;
    const { env: m, script } = await modelEnv([
      { text: "published answer" },
      { text: "draft answer" },
      { text: "v1 again" },
    ]);
    const created = await req(
      "A",
      "POST",
      "/components",
      {
        name: "Runner",
        component_id: id,
        component_type: "agent",
        config: { name: "Runner", model: "openai:gpt-test", instructions: "Answer as the published runner." },
        stage: "published",
      },
      m,
    );
    expect(created.status, created.text).toBe(201);
    await req(
      "A",
      "POST",
      `/components/${id}/configs`,
      {
        config: { name: "Runner", model: "openai:gpt-test", instructions: "Answer as the draft runner." },
      },
      m,
    );
    const listed = await req("B", "GET", "/agents", undefined, m);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.map((a: { id: string }) => a.id)).toContain(id);
    // agno's marks of a component built from a stored config; a code-defined agent has is_component false.
    expect((await req("B", "GET", `/agents/${id}`, undefined, m)).body).toMatchObject({
      id,
      name: "Runner",
      is_component: true,
      current_version: 1,
      stage: "published",
    });
    expect((await req("B", "GET", "/agents/assistant", undefined, m)).body.is_component).toBe(false);

    const byB = await req("B", "POST", `/agents/${id}/runs`, { message: "hi", stream: false }, m);
    expect(byB.status, byB.text).toBe(200);
    expect(byB.body).toMatchObject({ agent_id: id, status: "COMPLETED", content: "published answer" });
    expect(JSON.stringify((await script.requests())[0])).toContain("Answer as the published runner.");
    // The draft is A's to run, not B's.
    expect((await req("B", "POST", `/agents/${id}/runs`, { message: "hi", stream: false, version: 2 }, m)).status).toBe(
      404,
    );
    const draft = await req("A", "POST", `/agents/${id}/runs`, { message: "hi", stream: false, version: 2 }, m);
    expect(draft.status, draft.text).toBe(200);
    expect(JSON.stringify((await script.requests())[1])).toContain("Answer as the draft runner.");
    const v1 = await req("A", "POST", `/agents/${id}/runs`, { message: "hi", stream: false, version: 1 }, m);
    expect(v1.body.content).toBe("v1 again");
    expect((await req("A", "POST", `/agents/${id}/runs`, { message: "hi", stream: false, version: 9 }, m)).status).toBe(
      404,
    );
    expect((await req("B", "POST", `/agents/nobody-${tag}/runs`, { message: "hi", stream: false }, m)).status).toBe(
      404,
    );
  });

  it("lists published stored agents and teams in /config beside the code-defined ones; a draft-only one is nobody's entry", async () => {
    const pub = `cfg-pub-${tag}`;
    const draft = `cfg-draft-${tag}`;
    const team = `cfg-team-${tag}`;
    const { env: m } = await modelEnv([]);
    const made = [
      await req(
        "A",
        "POST",
        "/components",
        {
          name: "Listed",
          component_id: pub,
          component_type: "agent",
          config: { name: "Listed", description: "stored", model: "openai:gpt-test" },
          stage: "published",
        },
        m,
      ),
      await req(
        "A",
        "POST",
        "/components",
        {
          name: "Unlisted",
          component_id: draft,
          component_type: "agent",
          config: { name: "Unlisted", model: "openai:gpt-test" },
        },
        m,
      ),
      await req(
        "A",
        "POST",
        "/components",
        {
          name: "Desk",
          component_id: team,
          component_type: "team",
          config: {
            name: "Desk",
            model: "openai:gpt-test",
            mode: "route",
            members: [{ type: "agent", agent_id: pub }],
          },
          stage: "published",
        },
        m,
      ),
    ];
    for (const r of made) expect(r.status, r.text).toBe(201);
    for (const as of ["A", "B"] as const) {
      const config = await req(as, "GET", "/config", undefined, m);
      expect(config.status, config.text).toBe(200);
      const agents = config.body.agents as Array<{ id: string }>;
      expect(agents.find((a) => a.id === pub)).toMatchObject({
        id: pub,
        name: "Listed",
        description: "stored",
        model: { id: "gpt-test", provider: "openai" },
      });
      // The code-defined agents are still listed, first.
      expect(agents.findIndex((a) => a.id === pub)).toBeGreaterThan(0);
      expect(agents.map((a) => a.id)).not.toContain(draft);
      expect(config.body.teams.find((t: { id: string }) => t.id === team)).toMatchObject({ id: team, mode: "route" });
    }
    // /teams lists it too, with its stored member.
    const teams = await req("B", "GET", "/teams", undefined, m);
    expect(teams.body.find((t: { id: string }) => t.id === team)).toMatchObject({ id: team, name: "Desk" });
  });

  it("runs a stored agent in the background: the job runs the version the request resolved, even after a newer publish", async () => {
    const id = `bg-${tag}`;
    const { env: m } = await modelEnv([]);
    const created = await req(
      "A",
      "POST",
      "/components",
      {
        name: "Queued",
        component_id: id,
        component_type: "agent",
        config: { name: "Queued", model: "openai:gpt-test", instructions: "Answer as queued v1." },
        stage: "published",
      },
      m,
    );
    expect(created.status, created.text).toBe(201);
    const v2 = await req(
      "A",
      "POST",
      `/components/${id}/configs`,
      {
        config: { name: "Queued", model: "openai:gpt-test", instructions: "Answer as queued v2." },
        stage: "published",
      },
      m,
    );
    expect(v2.status, v2.text).toBe(201);
    const script = await queueModel([{ text: "from the queue, v1" }, { text: "from the queue, v2" }]);
    const { accepted: pinned, run: run1 } = await inBackground(
      "B",
      `/agents/${id}`,
      { message: "later", version: 1 },
      m,
    );
    expect(pinned.body).toMatchObject({ status: "PENDING", run_id: expect.any(String), job_id: expect.any(String) });
    expect(run1).toMatchObject({ agent_id: id, content: "from the queue, v1" });
    expect(JSON.stringify((await script.requests())[0])).toContain("Answer as queued v1.");
    // No version: the current (v2) is resolved at request time and carried by the job.
    await inBackground("B", `/agents/${id}`, { message: "later" }, m);
    const second = JSON.stringify((await script.requests())[1]);
    expect(second).toContain("Answer as queued v2.");
    expect(second).not.toContain("queued v1");
    // A draft stays its editor's, in the background too.
    await req("A", "POST", `/components/${id}/configs`, { config: { name: "Queued", model: "openai:gpt-test" } }, m);
    expect(
      (await req("B", "POST", `/agents/${id}/runs`, { message: "x", background: true, stream: false, version: 3 }, m))
        .status,
    ).toBe(404);
  });

  it("runs a stored team built from its published config, its stored member resolved from the catalog, in the foreground and background", async () => {
    const member = `tm-member-${tag}`;
    const team = `tm-team-${tag}`;
    const { env: m, script } = await modelEnv([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: member, task: "Do your part" } }] },
      { text: "member facts" },
      { text: "team answer" },
    ]);
    const created = [
      await req(
        "A",
        "POST",
        "/components",
        {
          name: "Member",
          component_id: member,
          component_type: "agent",
          config: { name: "Member", model: "openai:gpt-test", instructions: "You are the stored member." },
          stage: "published",
        },
        m,
      ),
      await req(
        "A",
        "POST",
        "/components",
        {
          name: "Team",
          component_id: team,
          component_type: "team",
          config: {
            name: "Team",
            model: "openai:gpt-test",
            instructions: "Lead the stored team.",
            members: [{ type: "agent", agent_id: member }],
          },
          stage: "published",
        },
        m,
      ),
    ];
    for (const r of created) expect(r.status, r.text).toBe(201);
    expect((await req("B", "GET", `/teams/${team}`, undefined, m)).body).toMatchObject({
      id: team,
      name: "Team",
      is_component: true,
      current_version: 1,
      stage: "published",
    });
    const ran = await req("B", "POST", `/teams/${team}/runs`, { message: "go", stream: false }, m);
    expect(ran.status, ran.text).toBe(200);
    expect(ran.body).toMatchObject({
      team_id: team,
      status: "COMPLETED",
      content: "team answer",
      member_responses: [{ agent_id: member, content: "member facts" }],
    });
    const sent = (await script.requests()).map((r) => JSON.stringify(r));
    expect(sent[0]).toContain("Lead the stored team.");
    expect(sent[1]).toContain("You are the stored member.");
    const stored = await req("B", "GET", `/teams/${team}/runs/${ran.body.run_id}`, undefined, m);
    expect(stored.body).toMatchObject({ run_id: ran.body.run_id, content: "team answer" });

    const queued = await queueModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: member, task: "Later" } }] },
      { text: "queued member facts" },
      { text: "queued team answer" },
    ]);
    const { run } = await inBackground("B", `/teams/${team}`, { message: "later" }, m);
    expect(run).toMatchObject({ team_id: team, content: "queued team answer" });
    expect(JSON.stringify((await queued.requests())[1])).toContain("You are the stored member.");
    // An unknown or draft-only team stays 404.
    expect((await req("B", "POST", `/teams/nobody-${tag}/runs`, { message: "x", stream: false }, m)).status).toBe(404);
  });
});

describe("stored workflows", () => {
  it("runs a stored workflow built from its published config, each step's stored agent in order, in the foreground and background; listed with the code-defined ones", async () => {
    const writer = `wf-writer-${tag}`;
    const editor = `wf-editor-${tag}`;
    const flow = `wf-flow-${tag}`;
    const { env: m, script } = await modelEnv([{ text: "a first draft" }, { text: "the edited piece" }]);
    const agent = (id: string, instructions: string) =>
      req(
        "A",
        "POST",
        "/components",
        {
          name: id,
          component_id: id,
          component_type: "agent",
          config: { name: id, model: "openai:gpt-test", instructions },
          stage: "published",
        },
        m,
      );
    for (const r of [await agent(writer, "You write drafts."), await agent(editor, "You edit drafts.")])
      expect(r.status, r.text).toBe(201);
    const created = await req(
      "A",
      "POST",
      "/components",
      {
        name: "Pipeline",
        component_id: flow,
        component_type: "workflow",
        config: {
          name: "Pipeline",
          description: "Write, then edit.",
          steps: [
            { type: "Step", name: "write", agent_id: writer },
            { type: "Step", name: "edit", agent_id: editor, max_retries: 0 },
          ],
        },
        stage: "published",
      },
      m,
    );
    expect(created.status, created.text).toBe(201);

    // Listed beside the code-defined workflows, in /workflows and /config, and readable alone.
    const listed = await req("B", "GET", "/workflows", undefined, m);
    expect(listed.body.map((w: { id: string }) => w.id)).toContain(flow);
    const config = await req("B", "GET", "/config", undefined, m);
    expect(config.body.workflows.map((w: { id: string }) => w.id)).toContain(flow);
    const one = await req("B", "GET", `/workflows/${flow}`, undefined, m);
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({
      id: flow,
      name: "Pipeline",
      description: "Write, then edit.",
      is_component: true,
      current_version: 1,
      stage: "published",
    });
    expect(config.body.workflows.find((w: { id: string }) => w.id === flow)).toMatchObject({
      is_component: true,
      current_version: 1,
      stage: "published",
    });

    const ran = await req("B", "POST", `/workflows/${flow}/runs`, { message: "tides", stream: false }, m);
    expect(ran.status, ran.text).toBe(200);
    expect(ran.body).toMatchObject({ workflow_id: flow, status: "COMPLETED", content: "the edited piece" });
    expect(ran.body.step_results.map((r: { step_name: string; content: string }) => [r.step_name, r.content])).toEqual([
      ["write", "a first draft"],
      ["edit", "the edited piece"],
    ]);
    const sent = (await script.requests()).map((r) => JSON.stringify(r));
    expect(sent[0]).toContain("You write drafts.");
    expect(sent[1]).toContain("You edit drafts.");
    expect(sent[1]).toContain("a first draft");
    const stored = await req("B", "GET", `/workflows/${flow}/runs/${ran.body.run_id}`, undefined, m);
    expect(stored.body).toMatchObject({ run_id: ran.body.run_id, content: "the edited piece" });

    const queued = await queueModel([{ text: "queued draft" }, { text: "queued edit" }]);
    const { run } = await inBackground("B", `/workflows/${flow}`, { message: "later" }, m);
    expect(run).toMatchObject({ workflow_id: flow, content: "queued edit" });
    expect(JSON.stringify((await queued.requests())[1])).toContain("You edit drafts.");
  });

  it("refuses a workflow config naming every bad step, and a step whose agent has no published version at run time", async () => {
    const bad = await req("A", "POST", "/components", {
      name: "Bad",
      component_id: `wf-bad-${tag}`,
      component_type: "workflow",
      config: {
        name: "Bad",
        steps: [
          { name: "nothing" },
          { agent_id: `nobody-${tag}` },
          { type: "Loop", agent_id: `nobody-${tag}` },
          { agent_id: `nobody-${tag}`, max_retries: -1, skip_on_failure: "yes" },
        ],
      },
    });
    expect(bad.status, bad.text).toBe(422);
    for (const problem of [
      "steps.0: must name an agent_id or a team_id",
      `steps.1: agent nobody-${tag} not found`,
      'steps.2.type: only "Step" runs from a stored config',
      "steps.3.max_retries: must be a whole number from 0 to 10",
      "steps.3.skip_on_failure: must be true or false",
    ])
      expect(bad.body.detail).toContain(problem);
    expect((await req("A", "GET", `/components/wf-bad-${tag}`)).status).toBe(404);

    // A draft-only agent passes validation (it is stored) but cannot run as a step: 422 naming it.
    const draft = `wf-draft-agent-${tag}`;
    const flow = `wf-uses-draft-${tag}`;
    const { env: m } = await modelEnv([]);
    expect(
      (
        await req(
          "A",
          "POST",
          "/components",
          {
            name: draft,
            component_id: draft,
            component_type: "agent",
            config: { name: draft, model: "openai:gpt-test" },
          },
          m,
        )
      ).status,
    ).toBe(201);
    const created = await req(
      "A",
      "POST",
      "/components",
      {
        name: flow,
        component_id: flow,
        component_type: "workflow",
        config: { name: flow, steps: [{ agent_id: draft }] },
        stage: "published",
      },
      m,
    );
    expect(created.status, created.text).toBe(201);
    const ran = await req("A", "POST", `/workflows/${flow}/runs`, { message: "x", stream: false }, m);
    expect(ran.status, ran.text).toBe(422);
    expect(ran.body.detail).toContain(`step agent ${draft} has no published version`);
  });
});

describe("stored components paused, continued and scheduled", () => {
  /** A published stored agent whose one tool is the example's approver tool (`forget_notes`). */
  async function storedForgetter(id: string, instructions: string, m: Partial<Env>) {
    const created = await req(
      "A",
      "POST",
      "/components",
      {
        name: id,
        component_id: id,
        component_type: "agent",
        config: { name: id, model: "openai:gpt-test", instructions, tools: ["forget_notes"] },
        stage: "published",
      },
      m,
    );
    expect(created.status, created.text).toBe(201);
  }

  it("continues a stored agent's paused run through POST …/continue and, resolved through /approvals, on the queue", async () => {
    const id = `paused-${tag}`;
    const { env: m, script } = await modelEnv([
      { toolCalls: [{ id: "fn-1", name: "forget_notes", arguments: {} }] },
      { text: "forgotten by hand" },
    ]);
    await storedForgetter(id, "You forget on request.", m);
    const paused = await req("A", "POST", `/agents/${id}/runs`, { message: "forget", stream: false }, m);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ status: "PAUSED", agent_id: id });
    const requirement = paused.body.requirements[0];
    const continueAs = (as: Who) =>
      req(
        as,
        "POST",
        `/agents/${id}/runs/${paused.body.run_id}/continue`,
        { requirements: [{ id: requirement.id, confirmed: true }], stream: false },
        m,
      );
    // Another user's continue finds nothing of A's run.
    const stranger = await continueAs("B");
    expect(stranger.status, stranger.text).toBe(404);
    // The tool needs an approver's decision: its owner is refused, an admin continues it.
    const owner = await continueAs("A");
    expect(owner.status, owner.text).toBe(403);
    const continued = await continueAs("admin");
    expect(continued.status, continued.text).toBe(200);
    expect(continued.body).toMatchObject({ status: "COMPLETED", content: "forgotten by hand" });
    expect(JSON.stringify((await script.requests())[1])).toContain("You forget on request.");

    // In the background: the run pauses on the queue, an approver resolves it, the queue continues it.
    await queueModel([{ toolCalls: [{ name: "forget_notes", arguments: {} }] }, { text: "forgotten on approval" }]);
    const { accepted: bg } = await inBackground("A", `/agents/${id}`, { message: "forget" }, m, "PAUSED");
    const approvals = await req("admin", "GET", `/approvals?run_id=${bg.body.run_id}&status=pending`);
    expect(approvals.body.data).toEqual([expect.objectContaining({ agent_id: id, tool_name: "forget_notes" })]);
    const resolved = await req("admin", "POST", `/approvals/${approvals.body.data[0].id}/resolve`, {
      status: "approved",
    });
    expect(resolved.status, resolved.text).toBe(200);
    const done = await until(
      () => req("A", "GET", `/agents/${id}/runs/${bg.body.run_id}`, undefined, m).then((r) => r.body),
      (r) => r?.status === "COMPLETED",
      "the approved run to complete on the queue",
    );
    expect(done).toMatchObject({ agent_id: id, content: "forgotten on approval" });
  });

  it("a schedule aimed at a stored agent runs its current published version; one aimed at a draft-only agent is refused", async () => {
    const id = `scheduled-${tag}`;
    const { env: m } = await modelEnv([]);
    await storedForgetter(id, "Scheduled v1.", m);
    const v2 = await req(
      "A",
      "POST",
      `/components/${id}/configs`,
      { config: { name: id, model: "openai:gpt-test", instructions: "Scheduled v2." } },
      m,
    );
    expect(v2.status, v2.text).toBe(201);
    const published = await req(
      "A",
      "PATCH",
      `/components/${id}/configs/${v2.body.version}`,
      { stage: "published" },
      m,
    );
    expect(published.status, published.text).toBe(200);
    const schedule = {
      name: `stored-${tag}`,
      cron_expr: "0 3 29 2 *",
      endpoint: `/agents/${id}/runs`,
      payload: { message: "scheduled hello" },
    };
    const created = await req("A", "POST", "/schedules", schedule, m);
    expect(created.status, created.text).toBe(201);
    const queued = await queueModel([{ text: "scheduled answer" }]);
    const triggered = await req("A", "POST", `/schedules/${created.body.id}/trigger`, undefined, m);
    expect(triggered.status, triggered.text).toBe(200);
    const run = await until(
      () => req("A", "GET", `/agents/${id}/runs/${triggered.body.run_id}`, undefined, m).then((r) => r.body),
      (r) => r?.status === "COMPLETED",
      "the scheduled run of the stored agent",
    );
    expect(run).toMatchObject({ agent_id: id, content: "scheduled answer" });
    expect(JSON.stringify((await queued.requests())[0])).toContain("Scheduled v2.");
    await req("A", "POST", `/schedules/${created.body.id}/disable`, undefined, m);

    const draftOnly = `draft-sched-${tag}`;
    expect(
      (
        await req(
          "A",
          "POST",
          "/components",
          {
            name: draftOnly,
            component_id: draftOnly,
            component_type: "agent",
            config: { name: draftOnly, model: "openai:gpt-test" },
          },
          m,
        )
      ).status,
    ).toBe(201);
    const refused = await req("A", "POST", "/schedules", { ...schedule, endpoint: `/agents/${draftOnly}/runs` }, m);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.detail).toContain(`agent ${draftOnly} is not served`);
  });
});

describe("defineAgentOS's registry option", () => {
  it("lets a Worker allow more models for stored configs: GET /registry lists them", async () => {
    const { env: workerEnv } = await import("cloudflare:workers");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    const { defineAgentOS } = await import("../../src/workers.js");
    const { Agent } = await import("../../src/agent/agent.js");
    const { UnconfiguredModel } = await import("../../src/models/unconfigured-model.js");
    const own = defineAgentOS({
      agents: [new Agent({ id: "own", model: new UnconfiguredModel() })],
      registry: () => ({ models: ["anthropic:claude-sonnet-4-5"] }),
    });
    const ctx = createExecutionContext();
    const res = await own.fetch(
      new Request("http://agno.test/registry?resource_type=model&limit=100", {
        headers: { authorization: `Bearer ${(workerEnv as { OS_SECURITY_KEY: string }).OS_SECURITY_KEY}` },
      }),
      workerEnv as never,
      ctx,
    );
    const body = (await res.json()) as { data: Array<{ metadata: { provider: string; model_id: string } }> };
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(body.data.map((m) => `${m.metadata.provider}:${m.metadata.model_id}`)).toContain(
      "anthropic:claude-sonnet-4-5",
    );
  });
});
