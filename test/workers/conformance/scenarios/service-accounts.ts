import { expect, it } from "vitest";
import { JSON_BODY, modelEnv } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});

/** Service accounts (agno's models, field for field) and the audit trail (agno-edge's own). */
export function serviceAccountsScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);
  let accountId = "";

  it("service accounts: minted with the key shown once, listed without it, used to run an agent, revoked", async () => {
    const created = await conformingCall(
      "/service-accounts",
      json("POST", { name: `conformance-${tag}`, scopes: [{ scope: "agents:assistant:run", effect: "allow" }] }),
    );
    expect(created.status).toBe(201);
    accountId = created.body.id;
    expect(created.body).toMatchObject({
      principal: `sa:conformance-${tag}`,
      token: expect.stringMatching(/^agno_pat_/),
    });
    expect((await conformingCall("/service-accounts", json("POST", { name: `conformance-${tag}` }))).status).toBe(409);
    expect(
      (await conformingCall("/service-accounts", json("POST", { name: `x-${tag}`, scopes: [{ scope: "bad" }] })))
        .status,
    ).toBe(400);
    expect((await conformingCall("/service-accounts", json("POST", { name: "Not A Slug" }))).status).toBe(422);

    const listed = await conformingCall("/service-accounts?limit=100&sort_order=asc&include_revoked=false");
    expect(listed.body.data.map((a: { id: string }) => a.id)).toContain(created.body.id);
    expect(listed.text).not.toContain(created.body.token);
    expect(listed.body.meta).toMatchObject({ limit: 100, search_time_ms: 0 });

    const { env: model } = await modelEnv([{ text: "run by a key" }]);
    const key = { authorization: `Bearer ${created.body.token}` };
    const ran = await conformingCall(
      "/agents/assistant/runs",
      json("POST", { message: "hi", stream: false }),
      model,
      key,
    );
    expect(ran).toMatchObject({ status: 200, body: { content: "run by a key", user_id: `sa:conformance-${tag}` } });
    expect((await conformingCall("/service-accounts", {}, {}, key)).status).toBe(403);

    expect((await conformingCall(`/service-accounts/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/service-accounts/no-such-${tag}`, { method: "DELETE" })).status).toBe(404);
    expect((await conformingCall("/service-accounts", {}, {}, key)).status).toBe(401);
  });

  it("the audit trail: admins page through who wrote what", async () => {
    const page = await conformingCall(`/audit?resource_type=service_account&resource_id=${accountId}&limit=5`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((r: { action: string; principal: string }) => [r.action, r.principal])).toEqual([
      ["revoke", "security_key"],
      ["create", "security_key"],
    ]);
    expect(page.body.meta).toMatchObject({ page: 1, limit: 5, total_count: 2 });
    expect((await conformingCall("/audit?limit=0")).status).toBe(422);
  });
}
