import { crc32, deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { MediaInput } from "../../src/agent/media.js";
import { ValidationError } from "../../src/errors.js";
import type { Message } from "../../src/models/message.js";
import { WorkersAIModel, type WorkersAIBinding } from "../../src/models/workers-ai-model.js";
import { collect, memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/** A valid 1x1 RGBA PNG, built chunk by chunk. */
function onePixelPng(): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter, no interlace
  const pixel = deflateSync(Buffer.from([0, 255, 0, 0, 255])); // filter byte, then one red pixel
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", pixel), chunk("IEND", Buffer.alloc(0))]),
  );
}

const PNG = onePixelPng();
const PNG_B64 = Buffer.from(PNG).toString("base64");
const PDF_TEXT =
  "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
const PDF_B64 = Buffer.from(PDF_TEXT).toString("base64");

type Part = Record<string, unknown>;
const userMessageOf = (messages: Message[]) => messages.find((m) => m.role === "user" && !m.from_history)!;

/** Media inputs of a run (agno's RunInput images/audios/videos/files): what the provider receives and what the run stores. */
describe("Agent runs with media", () => {
  let t: TestDb;
  beforeAll(() => {
    t = openTestDb(dbTargets()[0]!);
  });
  afterAll(() => t.close());

  it("sends an image and a PDF over the OpenAI Chat Completions wire, and stores them in agno's shape", async () => {
    const { model, script } = await scriptedModel([{ text: "A red pixel and an empty PDF." }]);
    const agent = new Agent({ model, db: t.db });
    const out = await agent.run("What are these?", {
      media: [
        { data: PNG, mimeType: "image/png" },
        { data: `data:application/pdf;base64,${PDF_B64}`, mimeType: "application/pdf", filename: "report.pdf" },
      ],
    });
    expect(out.status).toBe("COMPLETED");

    const [request] = await script.requests();
    const user = (request!.body.messages as Array<{ role: string; content: Part[] }>).find((m) => m.role === "user")!;
    expect(user.content).toEqual([
      { type: "text", text: "What are these?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } },
      { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF_B64}` } },
    ]);

    const row = await t.db.getRun(out.run_id);
    const input = row!.run_data.input as Record<string, unknown>;
    expect(input).toEqual({
      input_content: "What are these?",
      images: [{ id: expect.any(String), mime_type: "image/png", format: "png", content: PNG_B64 }],
      files: [
        {
          id: expect.any(String),
          mime_type: "application/pdf",
          format: "pdf",
          filename: "report.pdf",
          size: PDF_TEXT.length,
          content: PDF_B64,
        },
      ],
    });
    // The user message carries the same items under agno's Message fields.
    const message = userMessageOf(row!.run_data.messages as Message[]);
    expect(message).toMatchObject({ content: "What are these?", images: input.images, files: input.files });
    expect(message.audio).toBeUndefined();
  });

  it("sends an image, a PDF and a text file over the Anthropic wire (image and document blocks)", async () => {
    const { model, script } = await scriptedModel([{ text: "Seen." }], "anthropic");
    const out = await new Agent({ model, db: t.db }).run("Look", {
      stream: false,
      media: [
        { data: PNG_B64, mimeType: "image/png" },
        {
          data: new TextEncoder().encode(PDF_TEXT).buffer as ArrayBuffer,
          mimeType: "application/pdf",
          filename: "report.pdf",
        },
        {
          kind: "file",
          data: new TextEncoder().encode("héllo notes"),
          mimeType: "text/plain; charset=utf-8",
          filename: "notes.txt",
        },
      ],
    });
    expect(out.status).toBe("COMPLETED");
    const [request] = await script.requests();
    const [user] = request!.body.messages as Array<{ role: string; content: Part[] }>;
    expect(user!.content).toEqual([
      { type: "text", text: "Look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_B64 } },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: PDF_B64 },
        title: "report.pdf",
      },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "héllo notes" }, title: "notes.txt" },
    ]);
    // As agno's File does, a text file keeps its text; everything else is base64.
    const input = (await t.db.getRun(out.run_id))!.run_data.input as { files: Array<Record<string, unknown>> };
    expect(input.files.map((f) => [f.mime_type, f.format, f.content])).toEqual([
      ["application/pdf", "pdf", PDF_B64],
      ["text/plain", "txt", "héllo notes"],
    ]);
  });

  it("sends media to Gemini as inline data", async () => {
    const { model, script } = await scriptedModel([{ text: "Seen." }], "google");
    await new Agent({ model, db: t.db }).run("Look", {
      media: [
        { data: PNG, mimeType: "image/png" },
        { data: PDF_B64, mimeType: "application/pdf" },
      ],
    });
    const [request] = await script.requests();
    const contents = request!.body.contents as Array<{ role: string; parts: Part[] }>;
    expect(contents.at(-1)!.parts).toEqual([
      { text: "Look" },
      { inlineData: { mimeType: "image/png", data: PNG_B64 } },
      { inlineData: { mimeType: "application/pdf", data: PDF_B64 } },
    ]);
  });

  it("sends earlier media again as history, and streams a run with media", async () => {
    const { model, script } = await scriptedModel([{ text: "A red pixel." }, { text: "It was red." }]);
    const agent = new Agent({ model, db: t.db, addHistoryToContext: true });
    const first = await collect(
      agent.run("What colour?", { stream: true, media: [{ data: PNG, mimeType: "image/png" }] }),
    );
    expect(first.at(-1)!.event).toBe("RunCompleted");
    const second = await agent.run("What colour was it again?", { sessionId: first[0]!.session_id });
    expect(second.content).toBe("It was red.");
    const messages = (await script.requests())[1]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What colour?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        ],
      },
      { role: "assistant", content: "A red pixel." },
      { role: "user", content: "What colour was it again?" },
    ]);
    expect(second.input).toEqual({ input_content: "What colour was it again?" });
  });

  it("passes an image URL through for the provider to fetch, and stores the URL without content", async () => {
    const { model, script } = await scriptedModel([{ text: "ok" }]);
    const out = await new Agent({ model, db: t.db }).run("Describe", {
      media: [{ url: "https://example.com/cat.jpg", mimeType: "image/jpeg" }],
    });
    const user = ((await script.requests())[0]!.body.messages as Array<{ role: string; content: Part[] }>)[0]!;
    expect(user.content[1]).toEqual({ type: "image_url", image_url: { url: "https://example.com/cat.jpg" } });
    expect(out.input.images).toEqual([
      { id: expect.any(String), url: "https://example.com/cat.jpg", mime_type: "image/jpeg", format: "jpeg" },
    ]);
  });

  it("a media type the provider cannot take ends the run as a stored ERROR with the provider package's reason", async () => {
    const { model, script } = await scriptedModel([{ text: "never" }]);
    const out = await new Agent({ model, db: t.db }).run("Read", { media: [{ data: "aGk=", mimeType: "text/csv" }] });
    expect(out.status).toBe("ERROR");
    expect(out.error?.message).toMatch(/text\/csv/);
    expect(await script.requests()).toHaveLength(0);
  });
});

describe("Agent media validation", () => {
  let t: ReturnType<typeof memoryTestDb>;
  beforeAll(() => {
    t = memoryTestDb();
  });
  afterAll(() => t.close());

  const MiB = 1024 * 1024;
  const bad: Array<[string, MediaInput[] | unknown, string, RegExp]> = [
    [
      "an unsupported mime type",
      [{ data: PNG, mimeType: "image/svg+xml" }],
      "media.0.mimeType",
      /image\/svg\+xml is not a supported image type/,
    ],
    [
      "a mime type the kind does not take",
      [{ kind: "image", data: PDF_B64, mimeType: "application/pdf" }],
      "media.0.mimeType",
      /not a supported image type/,
    ],
    ["no mime type", [{ data: PNG }], "media.0.mimeType", /required/],
    [
      "an unknown kind",
      [{ kind: "hologram", data: PNG, mimeType: "image/png" }],
      "media.0.kind",
      /image, audio, video or file/,
    ],
    [
      "a kind named after an Object method",
      [{ kind: "toString", data: PNG, mimeType: "image/png" }],
      "media.0.kind",
      /image, audio, video or file/,
    ],
    [
      "bad base64",
      [
        { data: PNG, mimeType: "image/png" },
        { data: "not base64!", mimeType: "image/png" },
      ],
      "media.1.data",
      /not valid base64/,
    ],
    ["base64 of impossible length", [{ data: "abcde", mimeType: "image/png" }], "media.0.data", /not valid base64/],
    [
      "a data: URL of another type",
      [{ data: `data:image/jpeg;base64,${PNG_B64}`, mimeType: "image/png" }],
      "media.0.data",
      /says image\/jpeg/,
    ],
    [
      "an item over the default 20 MiB",
      [{ data: new Uint8Array(20 * MiB + 1), mimeType: "image/png" }],
      "media.0.data",
      /at most 20 MiB per item/,
    ],
    [
      "a base64 string over the default 20 MiB",
      [{ data: "A".repeat(28 * MiB), mimeType: "image/png" }],
      "media.0.data",
      /at most 20 MiB per item/,
    ],
    [
      "over 50 MiB in all",
      [0, 1, 2].map(() => ({ data: new Uint8Array(18 * MiB), mimeType: "video/mp4" })),
      "media",
      /at most 50 MiB per run/,
    ],
    [
      "more than 32 items",
      Array.from({ length: 33 }, () => ({ data: PNG, mimeType: "image/png" })),
      "media",
      /at most 32/,
    ],
    ["an empty item", [{ data: new Uint8Array(0), mimeType: "image/png" }], "media.0.data", /empty/],
    [
      "both data and url",
      [{ data: PNG, url: "https://example.com/a.png", mimeType: "image/png" }],
      "media.0",
      /either data or url/,
    ],
    ["neither data nor url", [{ mimeType: "image/png" }], "media.0", /either data or url/],
    ["a url that is not http", [{ url: "file:///etc/passwd", mimeType: "image/png" }], "media.0.url", /http or https/],
    [
      "a text file that is not UTF-8",
      [{ data: new Uint8Array([0xff, 0xfe, 0x41]), mimeType: "text/plain" }],
      "media.0.data",
      /UTF-8/,
    ],
    ["media that is not a list", { data: PNG, mimeType: "image/png" }, "media", /array/],
  ];

  it.each(bad)(
    "refuses %s with a ValidationError naming the field, writing nothing",
    async (_name, media, field, message) => {
      const { model, script } = await scriptedModel([{ text: "never" }]);
      const agent = new Agent({ model, db: t.db });
      const sessionId = crypto.randomUUID();
      const error = await agent.run("hi", { sessionId, media: media as MediaInput[] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
      // The streaming form refuses at the call, before a stream (or an HTTP answer) starts.
      expect(() => agent.run("hi", { sessionId, stream: true, media: media as MediaInput[] })).toThrow(ValidationError);
      expect(await t.db.getSession(sessionId)).toBeNull();
      expect((await t.db.getRuns({ sessionId })).total_count).toBe(0);
      expect(await script.requests()).toHaveLength(0);
    },
  );

  it("takes the agent's own limits, and accepts line-wrapped and URL-safe base64 as canonical base64", async () => {
    const { model } = await scriptedModel([{ text: "ok" }]);
    const agent = new Agent({ model, db: t.db, mediaLimits: { maxItemBytes: 64, maxItems: 2 } });
    await expect(agent.run("hi", { media: [{ data: PNG, mimeType: "image/png" }] })).rejects.toMatchObject({
      field: "media.0.data",
      message: `media[0].data: ${PNG.length} bytes; at most 64 bytes per item`,
    });
    const bytes = new Uint8Array([251, 255, 254, 1, 2]); // base64 "+//+AQI=", URL-safe "-__-AQI"
    const out = await agent.run("hi", { media: [{ data: "-__-\nAQI", mimeType: "audio/wav" }] });
    expect(out.input.audios).toEqual([
      { id: expect.any(String), mime_type: "audio/wav", format: "wav", content: Buffer.from(bytes).toString("base64") },
    ]);
    expect(userMessageOf(out.messages).audio).toEqual(out.input.audios);
  });
});

describe("Workers AI with media", () => {
  function fakeAI(): WorkersAIBinding & { inputs: Array<Record<string, unknown>> } {
    const inputs: Array<Record<string, unknown>> = [];
    return { inputs, run: async (_model, input) => (inputs.push(input), { response: "a red pixel" }) };
  }

  it("sends images to a vision model as image_url data URLs", async () => {
    const ai = fakeAI();
    const out = await new Agent({ model: new WorkersAIModel(ai, "@cf/meta/llama-4-scout-17b-16e-instruct") }).run(
      "What is it?",
      { media: [{ data: PNG, mimeType: "image/png" }] },
    );
    expect(out.content).toBe("a red pixel");
    expect(ai.inputs[0]!.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is it?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_B64}` } },
        ],
      },
    ]);
  });

  it("refuses media a Workers AI model cannot take before the run starts", () => {
    const ai = fakeAI();
    const textOnly = new Agent({ model: new WorkersAIModel(ai, "@cf/meta/llama-3.3-70b-instruct-fp8-fast") });
    const vision = new Agent({ model: new WorkersAIModel(ai, "@cf/meta/llama-3.2-11b-vision-instruct") });
    expect(() => textOnly.run("hi", { stream: true, media: [{ data: PNG, mimeType: "image/png" }] })).toThrow(
      /does not read images/,
    );
    expect(() => vision.run("hi", { stream: true, media: [{ data: PDF_B64, mimeType: "application/pdf" }] })).toThrow(
      /takes no file input/,
    );
    expect(() =>
      vision.run("hi", { stream: true, media: [{ url: "https://example.com/a.png", mimeType: "image/png" }] }),
    ).toThrow(/not URLs/);
    const optedIn = new Agent({ model: new WorkersAIModel(ai, "@cf/some/new-vision-model", { images: true }) });
    expect(() => optedIn.run("hi", { stream: true, media: [{ data: PNG, mimeType: "image/png" }] })).not.toThrow();
    expect(ai.inputs).toHaveLength(0);
  });
});
