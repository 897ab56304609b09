import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { NotConfiguredError, NotFoundError, ValidationError } from "../../src/errors.js";
import type { Message } from "../../src/models/message.js";
import type { Model } from "../../src/models/model.js";
import { LocalStorage } from "../../src/offload/local-storage.js";
import type { ObjectStorage } from "../../src/offload/object-storage.js";
import { pruneToolResults, ResultStore } from "../../src/offload/result-store.js";
import { tool } from "../../src/tools/tool.js";
import { scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import type { ModelScript, RecordedRequest, Turn } from "../support/model-script.js";

/** 1 MiB of numbered ASCII lines, with one needle near the end. */
const BIG = (() => {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < 1024 * 1024; i++) {
    const line =
      i === 40_000 ? "row 040000 needle=FOUND-IT" : `row ${String(i).padStart(6, "0")} value=${(i * 7919) % 100_000}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n").slice(0, 1024 * 1024);
})();

const dump = tool({
  name: "dump",
  description: "Dumps the table",
  parameters: z.object({ table: z.string() }),
  execute: () => BIG,
});

/**
 * A model whose next turn is decided from the request it answers (a result_id exists only once
 * the run has stored it). Each turn is still served by the scripted model server through the
 * real provider package; `requests()` lists what the server received, in order.
 */
function reactiveModel(decide: (messages: Message[], turn: number) => Turn): {
  model: Model;
  requests(): Promise<RecordedRequest[]>;
} {
  const scripts: ModelScript[] = [];
  const model: Model = {
    id: "gpt-test",
    provider: "openai",
    async *stream(request) {
      const { model: inner, script } = await scriptedModel([decide(request.messages, scripts.length)]);
      scripts.push(script);
      yield* inner.stream(request);
    },
  };
  return { model, requests: async () => (await Promise.all(scripts.map((s) => s.requests()))).flat() };
}

type WireMessage = { role: string; content: string; tool_call_id?: string };
const wireMessages = (r: RecordedRequest) => r.body.messages as WireMessage[];
const toolAnswer = (r: RecordedRequest, id: string) =>
  wireMessages(r).find((m) => m.role === "tool" && m.tool_call_id === id)!.content;
const lastEnvelope = (messages: Message[]) =>
  JSON.parse(String(messages.findLast((m) => m.role === "tool")!.content)) as { result_id: string };

describe.each(dbTargets())("Tool-result offload on $name", (target) => {
  let t: TestDb;
  let dir: string;
  let storage: LocalStorage;
  const table = () => `"${t.schema}".agno_tool_results`;
  const rowCount = async () => Number((await t.query<{ n: string }>(`SELECT count(*) AS n FROM ${table()}`))[0]!.n);

  beforeAll(async () => {
    t = openTestDb(target);
    expect(await t.db.init()).toBe("current");
    dir = mkdtempSync(join(tmpdir(), "agno-offload-"));
    storage = new LocalStorage({ directory: join(dir, "results") });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a 1 MB result out of the run and the model's context, and reads it back in slices", async () => {
    const needleAt = BIG.indexOf("needle=FOUND-IT");
    const { model, requests } = reactiveModel((messages, turn) => {
      if (turn === 0) return { toolCalls: [{ id: "call_dump", name: "dump", arguments: { table: "rows" } }] };
      if (turn === 1) {
        const { result_id } = lastEnvelope(messages);
        return {
          toolCalls: [
            { id: "call_read", name: "read_result", arguments: { result_id, offset: 500_000, length: 100 } },
            {
              id: "call_find",
              name: "search_result",
              arguments: { result_id, query: "needle=FOUND-IT", context_chars: 20 },
            },
            {
              id: "call_regex",
              name: "search_result",
              arguments: { result_id, query: "^row 04000[01] ", regex: true, context_chars: 0 },
            },
          ],
        };
      }
      return { text: "The needle is in row 40000." };
    });
    const agent = new Agent({ model, tools: [dump], db: t.db, offloadToolResults: true }).withOffloadStorage(storage);
    const out = await agent.run("Find the needle", { userId: "alice" });
    expect(out.status).toBe("COMPLETED");

    // Writing the result made no model call: three requests, one per turn.
    const [first, second, third, ...rest] = await requests();
    expect(rest).toEqual([]);
    expect((first!.body.tools as Array<{ function: { name: string } }>).map((x) => x.function.name)).toEqual([
      "dump",
      "read_result",
      "search_result",
    ]);

    // The model's next turn carries the envelope, not the megabyte.
    expect(JSON.stringify(second!.body).length).toBeLessThan(10_000);
    const envelope = JSON.parse(toolAnswer(second!, "call_dump")) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      tool_name: "dump",
      size_chars: BIG.length,
      size_bytes: BIG.length,
      line_count: BIG.split("\n").length,
      preview: BIG.slice(0, 1000),
      hint: expect.stringMatching(/read_result.*search_result/),
    });
    const resultId = String(envelope.result_id);

    // The slices the model asked for, exactly.
    const read = JSON.parse(toolAnswer(third!, "call_read"));
    expect(read).toEqual({
      result_id: resultId,
      offset: 500_000,
      length: 100,
      total_chars: BIG.length,
      next_offset: 500_100,
      content: BIG.slice(500_000, 500_100),
    });
    const found = JSON.parse(toolAnswer(third!, "call_find"));
    expect(found).toMatchObject({ result_id: resultId, more_matches: false, scanned_chars: BIG.length });
    expect(found.matches).toEqual([
      {
        offset: needleAt,
        length: 15,
        match: "needle=FOUND-IT",
        before: BIG.slice(needleAt - 20, needleAt),
        after: BIG.slice(needleAt + 15, needleAt + 35),
      },
    ]);
    const byRegex = JSON.parse(toolAnswer(third!, "call_regex"));
    expect(byRegex.matches.map((m: { offset: number; match: string }) => [m.offset, m.match])).toEqual([
      [BIG.indexOf("\nrow 040000 ") + 1, "row 040000 "],
      [BIG.indexOf("\nrow 040001 ") + 1, "row 040001 "],
    ]);

    // The stored run holds the envelope: small.
    const row = await t.db.getRun(out.run_id);
    expect(JSON.stringify(row!.run_data).length).toBeLessThan(20_000);
    expect(row!.run_data.tools).toMatchObject([
      { tool_call_id: "call_dump", result: toolAnswer(second!, "call_dump") },
      {},
      {},
      {},
    ]);

    // The index row and the object.
    const [indexed] = await t.query(`SELECT * FROM ${table()} WHERE result_id = $1`, [resultId]);
    expect(indexed).toMatchObject({
      session_id: out.session_id,
      run_id: out.run_id,
      tool_call_id: "call_dump",
      tool_name: "dump",
      args_hash: createHash("sha256").update('{"table":"rows"}').digest("hex"),
      content_type: "text/plain; charset=utf-8",
      user_id: "alice",
      namespace: `local:results`,
      path: `tool-results/${out.session_id}/${resultId}`,
      preview: BIG.slice(0, 1000),
    });
    expect(Number(indexed!.size_chars)).toBe(BIG.length);
    expect(Number(indexed!.expires_at) - Number(indexed!.created_at)).toBe(7 * 24 * 3600);
    const object = await storage.get(String(indexed!.path));
    expect(await new Response(object!.body).text()).toBe(BIG);
  });

  it("answers another user's or another session's result id as not found, and bad queries as errors the model reads", async () => {
    const store = new ResultStore({ storage });
    const origin = {
      sessionId: "s-owner",
      runId: null,
      userId: "alice",
      toolCallId: null,
      toolName: "dump",
      args: null,
    };
    const { result_id } = JSON.parse((await store.offload(t.db, BIG, origin))!) as { result_id: string };
    await expect(
      store.read(t.db, result_id, { sessionId: "s-owner", userId: "alice" }, { length: 5 }),
    ).resolves.toMatchObject({ content: "row 0" });
    await expect(store.read(t.db, result_id, { sessionId: "s-owner", userId: "bob" })).rejects.toThrow(NotFoundError);
    await expect(store.read(t.db, result_id, { sessionId: "s-other", userId: "alice" })).rejects.toThrow(NotFoundError);
    await expect(
      store.search(t.db, result_id, { sessionId: "s-owner", userId: null }, { query: "row" }),
    ).rejects.toThrow(NotFoundError);

    // Through an agent: bob's run asks for alice's id, then a refused and an invalid regex on his own.
    const { model, requests } = reactiveModel((messages, turn) => {
      if (turn === 0)
        return {
          toolCalls: [
            { id: "dump", name: "dump", arguments: { table: "t" } },
            { id: "steal", name: "read_result", arguments: { result_id } },
          ],
        };
      if (turn === 1) {
        const own = lastEnvelope(messages.filter((m) => m.tool_call_id !== "steal")).result_id;
        return {
          toolCalls: [
            { id: "bomb", name: "search_result", arguments: { result_id: own, query: "(a+)+$", regex: true } },
            { id: "broken", name: "search_result", arguments: { result_id: own, query: "([a-z", regex: true } },
          ],
        };
      }
      return { text: "ok" };
    });
    const out = await new Agent({
      model,
      tools: [dump],
      db: t.db,
      offloadToolResults: new ResultStore({ storage }),
    }).run("go", { userId: "bob" });
    const [, second, third] = await requests();
    expect(toolAnswer(second!, "steal")).toMatch(/^Error: tool result .* not found/);
    expect(toolAnswer(third!, "bomb")).toMatch(/^Error: regex refused: a repeated group may not contain a quantifier/);
    expect(toolAnswer(third!, "broken")).toMatch(/^Error: invalid regex/);
    expect(out.tools.filter((x) => x.tool_call_error).map((x) => x.tool_call_id)).toEqual(["steal", "bomb", "broken"]);
  });

  it.each([
    ["ASCII", "a", 1],
    ["CJK", "漢", 3],
    ["emoji", "😀", 4],
  ])(
    "counts characters as code points: %s at the threshold stays, one more is offloaded",
    async (_name, char, bytesPerChar) => {
      const store = new ResultStore({ storage });
      const origin = {
        sessionId: `boundary-${bytesPerChar}`,
        runId: null,
        userId: null,
        toolCallId: null,
        toolName: "t",
        args: null,
      };
      const before = await rowCount();
      expect(await store.offload(t.db, char.repeat(16_000), origin)).toBeNull();
      expect(await rowCount()).toBe(before);
      const envelope = JSON.parse((await store.offload(t.db, char.repeat(16_001), origin))!);
      expect(envelope).toMatchObject({
        size_chars: 16_001,
        size_bytes: 16_001 * bytesPerChar,
        line_count: 1,
        preview: char.repeat(1000),
      });
      expect(await rowCount()).toBe(before + 1);
    },
  );

  it("reads and searches by code points in mixed text", async () => {
    const store = new ResultStore({ storage, thresholdChars: 100 });
    const text = "ab😀漢".repeat(50) + "END";
    const scope = { sessionId: "mixed", userId: "carol" };
    const { result_id } = JSON.parse(
      (await store.offload(t.db, text, { ...scope, runId: null, toolCallId: null, toolName: null, args: null }))!,
    );
    expect(await store.read(t.db, result_id, scope, { offset: 2, length: 3 })).toMatchObject({
      content: "😀漢a",
      length: 3,
      next_offset: 5,
      total_chars: 203,
    });
    expect(await store.read(t.db, result_id, scope, { offset: 200, length: 50 })).toMatchObject({
      content: "END",
      next_offset: null,
    });
    const found = await store.search(t.db, result_id, scope, { query: "END", contextChars: 2 });
    expect(found.matches).toEqual([{ offset: 200, length: 3, match: "END", before: "😀漢", after: "" }]);
    const capped = await store.search(t.db, result_id, scope, { query: "漢a", maxMatches: 3 });
    expect(capped.matches.map((m) => m.offset)).toEqual([3, 7, 11]);
    expect(capped.more_matches).toBe(true);
    await expect(store.search(t.db, result_id, scope, { query: "(\\w|\\d)*x", regex: true })).rejects.toThrow(
      ValidationError,
    );
  });

  it("offloads a result holding NUL and a lone surrogate: its index row is written (preview sanitised) and the run completes", async () => {
    const hostile = tool({
      name: "hostile",
      description: "Dumps odd bytes",
      parameters: z.object({}),
      execute: () => "nul\u0000 half\ud800 " + BIG,
    });
    const { model } = reactiveModel((_messages, turn) =>
      turn === 0 ? { toolCalls: [{ id: "call_hostile", name: "hostile", arguments: {} }] } : { text: "done" },
    );
    const agent = new Agent({ model, tools: [hostile], db: t.db, offloadToolResults: true }).withOffloadStorage(
      storage,
    );
    const out = await agent.run("dump it", { userId: "nul-user" });
    expect(out.status).toBe("COMPLETED");
    const [row] = await t.query<{ preview: string }>(`SELECT preview FROM ${table()} WHERE user_id = 'nul-user'`);
    expect(row!.preview.startsWith("nul\ufffd half\ufffd row 000000")).toBe(true);
    expect((await t.db.getRun(out.run_id))?.status).toBe("COMPLETED");
  });

  it("leaves results at or below the threshold in the messages and writes nothing", async () => {
    const exact = tool({ name: "exact", parameters: z.object({}), execute: () => "x".repeat(16_000) });
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "e", name: "exact", arguments: {} }] },
      { text: "ok" },
    ]);
    const before = await rowCount();
    const out = await new Agent({
      model,
      tools: [exact],
      db: t.db,
      offloadToolResults: true,
      resultStorage: storage,
    }).run("go");
    expect(out.tools[0]!.result).toBe("x".repeat(16_000));
    expect(toolAnswer((await script.requests())[1]!, "e")).toBe("x".repeat(16_000));
    expect(await rowCount()).toBe(before);
  });

  it("prunes expired results of its store, rows and objects, and reads them as not found once expired", async () => {
    const other = new LocalStorage({ directory: join(dir, "elsewhere") });
    const short = new ResultStore({ storage, ttlSeconds: 60 });
    const at = (store: ResultStore, sessionId: string) =>
      store.offload(
        t.db,
        BIG.slice(0, 20_000),
        { sessionId, runId: null, userId: null, toolCallId: null, toolName: null, args: null },
        1_000,
      );
    const ids = await Promise.all([
      at(short, "p1"),
      at(short, "p2"),
      at(new ResultStore({ storage, ttlSeconds: null }), "p3"),
      at(new ResultStore({ storage: other, ttlSeconds: 60 }), "p4"),
    ]);
    const [gone1, gone2, kept, elsewhere] = ids.map((e) => JSON.parse(e!).result_id as string);
    const pathOf = async (id: string) =>
      String((await t.query(`SELECT path FROM ${table()} WHERE result_id = $1`, [id]))[0]!.path);
    const paths = await Promise.all([gone1!, gone2!, kept!, elsewhere!].map(pathOf));

    await expect(short.read(t.db, gone1!, { sessionId: "p1", userId: null }, {}, 1_061)).rejects.toThrow(/not found/);
    expect(await pruneToolResults(t.db, storage, 1_060)).toBe(0);
    expect(await pruneToolResults(t.db, storage, 1_061)).toBe(2);
    const left = await t.query<{ result_id: string }>(`SELECT result_id FROM ${table()} WHERE result_id = ANY($1)`, [
      [gone1, gone2, kept, elsewhere],
    ]);
    expect(left.map((r) => r.result_id).sort()).toEqual([kept!, elsewhere!].sort());
    expect(await storage.head(paths[0]!)).toBeNull();
    expect(await storage.head(paths[1]!)).toBeNull();
    expect(await storage.head(paths[2]!)).not.toBeNull();
    expect(await other.head(paths[3]!)).not.toBeNull();
    expect(await pruneToolResults(t.db, other, 1_061)).toBe(1);
    expect(await other.head(paths[3]!)).toBeNull();
  });

  it("gives the model an error, not the megabyte, when the result cannot be stored", async () => {
    const broken: ObjectStorage = {
      backend: "local",
      bucket: "broken",
      put: () => Promise.reject(new Error("bucket unreachable")),
      get: () => Promise.resolve(null),
      head: () => Promise.resolve(null),
      delete: () => Promise.resolve(),
    };
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "d", name: "dump", arguments: { table: "t" } }] },
      { text: "sorry" },
    ]);
    const out = await new Agent({
      model,
      tools: [dump],
      db: t.db,
      offloadToolResults: new ResultStore({ storage: broken }),
    }).run("go");
    expect(out.tools[0]).toMatchObject({
      tool_call_error: true,
      result: expect.stringMatching(/^Error: .*storing them for read_result failed: bucket unreachable$/),
    });
    expect(toolAnswer((await script.requests())[1]!, "d").length).toBeLessThan(300);
  });

  it("refuses a configuration that cannot offload", async () => {
    const { model } = await scriptedModel([]);
    await expect(new Agent({ model, db: t.db, offloadToolResults: true }).run("go")).rejects.toThrow(
      NotConfiguredError,
    );
    expect(() => new Agent({ model, offloadToolResults: true }).run("go", { stream: true })).toThrow(
      NotConfiguredError,
    );
    const clash = tool({ name: "read_result", parameters: z.object({}), execute: () => "" });
    expect(() => new Agent({ model, tools: [clash], offloadToolResults: true })).toThrow(
      /offloadToolResults adds the tool read_result, which the agent.s own tools already hold/,
    );
  });
});
