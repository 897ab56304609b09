import { describe, expect, it } from "vitest";
import type { EvalRunWrite } from "../../src/db/port.js";
import { ConflictError, ValidationError } from "../../src/errors.js";
import type { ContractDb } from "./db-contract.js";

/**
 * Eval runs (issue 23), part of the Db contract: `c()` is the suite's shared database, so every
 * test names its own agent, team and users. Each run of an eval is its own row; lists filter,
 * sort and page as agno's get_eval_runs does; get, rename and delete see only the scoped user's.
 */
export function describeEvalStoreContract(c: () => ContractDb): void {
  describe("eval runs", () => {
    const tag = () => Math.random().toString(36).slice(2, 10);
    const run = (extra: Partial<EvalRunWrite> & { run_id: string }): EvalRunWrite => ({
      eval_type: "accuracy",
      eval_data: { avg_score: 7, results: [{ score: 7, reason: "close" }] },
      ...extra,
    });

    it("keeps two records for two runs of one eval, each as stored; a run id twice is a conflict", async () => {
      const db = c().db;
      const t = tag();
      const input = { input: "2+2?", expected_output: "4", num_iterations: 1 };
      const first = await db.evals.create(
        run({
          run_id: `ev-${t}-1`,
          name: "math",
          agent_id: `agent-${t}`,
          model_id: "gpt-test",
          model_provider: "OpenAI",
          evaluated_component_name: "Math agent",
          eval_input: input,
          user_id: `u-${t}`,
        }),
      );
      expect(first).toEqual({
        run_id: `ev-${t}-1`,
        eval_type: "accuracy",
        eval_data: { avg_score: 7, results: [{ score: 7, reason: "close" }] },
        eval_input: input,
        name: "math",
        agent_id: `agent-${t}`,
        team_id: null,
        workflow_id: null,
        model_id: "gpt-test",
        model_provider: "OpenAI",
        evaluated_component_name: "Math agent",
        user_id: `u-${t}`,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      await db.evals.create(run({ run_id: `ev-${t}-2`, name: "math", agent_id: `agent-${t}`, eval_input: input }));
      expect(await db.evals.get(`ev-${t}-1`)).toEqual(first);
      const page = await db.evals.list({ agentId: `agent-${t}`, sortBy: "run_id", sortOrder: "asc" });
      expect(page.data.map((r) => r.run_id)).toEqual([`ev-${t}-1`, `ev-${t}-2`]);
      expect(page.data[1]!.eval_input).toEqual(input);
      expect(page.total_count).toBe(2);
      await expect(db.evals.create(run({ run_id: `ev-${t}-1` }))).rejects.toBeInstanceOf(ConflictError);
      // A NUL (which Postgres text refuses) is stored replaced, on every adapter alike.
      const nul = await db.evals.create(
        run({ run_id: `ev-${t}-nul`, name: "a\u0000b", eval_input: { q: "c\u0000d" } }),
      );
      expect([nul.name, nul.eval_input]).toEqual(["a\ufffdb", { q: "c\ufffdd" }]);
      expect((await db.evals.rename(`ev-${t}-nul`, "e\u0000f"))!.name).toBe("e\ufffdf");
      // No input stored is an empty object (agno_eval_runs.eval_input is NOT NULL).
      expect((await db.evals.create(run({ run_id: `ev-${t}-3` }))).eval_input).toEqual({});
    });

    it("refuses a run that is not one of agno's eval types, or data that is not an object", async () => {
      const db = c().db;
      await expect(
        db.evals.create({ run_id: `ev-${tag()}`, eval_type: "vibes" as never, eval_data: {} }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        db.evals.create({ run_id: `ev-${tag()}`, eval_type: "accuracy", eval_data: [] as never }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(db.evals.list({ sortBy: "eval_data" as never })).rejects.toBeInstanceOf(ValidationError);
    });

    it("lists filtered by agent, team, model, types and component kind, sorted and paged", async () => {
      const db = c().db;
      const t = tag();
      const user = `u-${t}`;
      await db.evals.create(run({ run_id: `${t}-a`, agent_id: `ag-${t}`, model_id: "m1", user_id: user }));
      await db.evals.create(
        run({ run_id: `${t}-b`, agent_id: `ag-${t}`, model_id: "m2", eval_type: "reliability", user_id: user }),
      );
      await db.evals.create(run({ run_id: `${t}-c`, team_id: `tm-${t}`, eval_type: "performance", user_id: user }));
      await db.evals.create(
        run({ run_id: `${t}-d`, workflow_id: `wf-${t}`, eval_type: "agent_as_judge", user_id: user }),
      );
      const ids = async (q: Parameters<typeof db.evals.list>[0]) =>
        (await db.evals.list({ userId: user, sortBy: "run_id", sortOrder: "asc", ...q })).data.map((r) => r.run_id);
      expect(await ids({})).toEqual([`${t}-a`, `${t}-b`, `${t}-c`, `${t}-d`]);
      expect(await ids({ agentId: `ag-${t}` })).toEqual([`${t}-a`, `${t}-b`]);
      expect(await ids({ teamId: `tm-${t}` })).toEqual([`${t}-c`]);
      expect(await ids({ workflowId: `wf-${t}` })).toEqual([`${t}-d`]);
      expect(await ids({ modelId: "m2" })).toEqual([`${t}-b`]);
      expect(await ids({ evalTypes: ["reliability", "performance"] })).toEqual([`${t}-b`, `${t}-c`]);
      expect(await ids({ filterType: "agent" })).toEqual([`${t}-a`, `${t}-b`]);
      expect(await ids({ filterType: "team" })).toEqual([`${t}-c`]);
      expect(await ids({ filterType: "workflow" })).toEqual([`${t}-d`]);
      expect(await ids({ sortOrder: "desc" })).toEqual([`${t}-d`, `${t}-c`, `${t}-b`, `${t}-a`]);
      expect(await ids({ sortBy: "eval_type" })).toEqual([`${t}-a`, `${t}-d`, `${t}-c`, `${t}-b`]);
      const second = await db.evals.list({ userId: user, sortBy: "run_id", sortOrder: "asc", limit: 3, page: 2 });
      expect(second.data.map((r) => r.run_id)).toEqual([`${t}-d`]);
      expect(second).toMatchObject({ page: 2, limit: 3, total_count: 4, total_pages: 2 });
      const past = await db.evals.list({ userId: user, limit: 3, page: 5 });
      expect(past).toMatchObject({ data: [], total_count: 4 });
      // Newest first by default: a later run leads.
      const newest = await db.evals.list({ userId: user, limit: 1 });
      expect(newest.data[0]!.created_at).toBeGreaterThanOrEqual(
        Math.max(...(await db.evals.list({ userId: user })).data.map((r) => r.created_at)),
      );
    });

    it("renames and deletes only within the scoped user's runs; another user's read as missing", async () => {
      const db = c().db;
      const t = tag();
      const [a, b] = [`ua-${t}`, `ub-${t}`];
      await db.evals.create(run({ run_id: `${t}-a1`, user_id: a, name: "A's" }));
      await db.evals.create(run({ run_id: `${t}-a2`, user_id: a }));
      await db.evals.create(run({ run_id: `${t}-b1`, user_id: b, name: "B's" }));

      expect(await db.evals.get(`${t}-b1`, { userId: a })).toBeNull();
      expect(await db.evals.get(`${t}-b1`, { userId: b })).toMatchObject({ name: "B's" });
      expect((await db.evals.list({ userId: a })).data.map((r) => r.run_id).sort()).toEqual([`${t}-a1`, `${t}-a2`]);

      expect(await db.evals.rename(`${t}-b1`, "hijacked", { userId: a })).toBeNull();
      expect((await db.evals.get(`${t}-b1`))!.name).toBe("B's");
      const renamed = await db.evals.rename(`${t}-a1`, "renamed", { userId: a });
      expect(renamed).toMatchObject({ run_id: `${t}-a1`, name: "renamed", user_id: a });
      expect(await db.evals.get(`${t}-a1`)).toEqual(renamed);
      expect(await db.evals.rename(`${t}-none`, "x")).toBeNull();
      await expect(db.evals.rename(`${t}-a1`, "")).rejects.toBeInstanceOf(ValidationError);

      expect(await db.evals.delete([`${t}-a2`, `${t}-b1`], { userId: a })).toBe(1);
      expect(await db.evals.get(`${t}-a2`)).toBeNull();
      expect(await db.evals.get(`${t}-b1`)).not.toBeNull();
      // Unscoped (an admin): any user's.
      expect(await db.evals.delete([`${t}-b1`, `${t}-none`])).toBe(1);
      expect(await db.evals.get(`${t}-b1`)).toBeNull();
      expect(await db.evals.delete([])).toBe(0);
    });
  });
}
