import { expect, it } from "vitest";
import { JSON_BODY } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const tag = crypto.randomUUID().slice(0, 8);
const json = (method: string, body?: unknown): RequestInit =>
  body === undefined ? { method } : { method, headers: JSON_BODY, body: JSON.stringify(body) };

/** agno's `/components` and `/registry` routes, each answer parsed with agno's ComponentResponse / ComponentConfigResponse / RegistryContentResponse. */
export function componentsScenarios(): void {
  it("GET /registry lists resources in agno's paginated shape", async () => {
    const res = await conformingCall("/registry?limit=100");
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });

  it("walks a component through every route: create, edit, publish, roll back, tombstone a draft, archive, restore", async () => {
    const models = await conformingCall("/registry?resource_type=model");
    const m = models.body.data[0].metadata;
    const model = `${m.provider}:${m.model_id}`;
    const id = `conf-${tag}`;
    const created = await conformingCall(
      "/components",
      json("POST", { name: "Conf", component_id: id, component_type: "agent", config: { model }, stage: "published" }),
    );
    expect(created.status).toBe(201);
    expect((await conformingCall("/components?component_type=agent&limit=100")).status).toBe(200);
    expect((await conformingCall(`/components/${id}`)).body.current_version).toBe(1);
    expect((await conformingCall(`/components/${id}`, json("PATCH", { description: "d" }))).body.description).toBe("d");
    const v2 = await conformingCall(
      `/components/${id}/configs`,
      json("POST", { config: { model }, guard: { latest_version: 1 } }),
    );
    expect(v2.body).toMatchObject({ version: 2, stage: "draft" });
    const stale = await conformingCall(
      `/components/${id}/configs`,
      json("POST", { config: {}, guard: { latest_version: 1 } }),
    );
    expect(stale.status).toBe(409);
    expect(stale.body.error_id).toBe("version_conflict");
    expect((await conformingCall(`/components/${id}/configs/2`, json("PATCH", { notes: "n" }))).body.notes).toBe("n");
    expect((await conformingCall(`/components/${id}/configs/2`)).body.version).toBe(2);
    expect((await conformingCall(`/components/${id}/configs`)).body).toHaveLength(2);
    expect((await conformingCall(`/components/${id}/configs/current`)).body.version).toBe(1);
    const v3 = await conformingCall(
      `/components/${id}/configs`,
      json("POST", { config: { model }, stage: "published" }),
    );
    expect(v3.body.version).toBe(3);
    expect(
      (await conformingCall(`/components/${id}/configs/1/set-current`, json("POST", {}))).body.current_version,
    ).toBe(1);
    expect((await conformingCall(`/components/${id}/configs/2`, json("DELETE"))).status).toBe(204);
    expect((await conformingCall(`/components/${id}`, json("DELETE"))).status).toBe(204);
    expect((await conformingCall(`/components/${id}/restore`, json("POST"))).body.component_id).toBe(id);
  });
}
