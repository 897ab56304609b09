/**
 * The chat interfaces' figures of BENCHMARKS.md (`npm run bench -- interfaces`), issue 20's
 * "Measured": how fast the Telegram webhook acknowledges under a steady 50 events/s, and the time
 * from a message's delivery to the first text posted back, with a model that answers at once.
 *
 * The runtime is the one a user starts (`npm run dev`: wrangler dev over src/index.ts with its
 * embedded Postgres and local JobQueue object), Telegram turned on by its secrets as the README
 * says, its API pointed at a stand-in Bot API in this process that answers every method as
 * Telegram does and notes when each chat's first `sendMessage` arrives. The load is open-loop
 * (one webhook every 1/rate s, not waiting for answers), each message from a chat of its own so
 * no run waits on another's session.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startDev, type DevServer } from "../../test/support/dev-server.js";
import { startModelServer } from "../../test/support/model-server.js";
import { scriptModel } from "../../test/support/model-script.js";
import { emit, log, median, percentile, round } from "./util.js";

const RATE = Number(process.env.BENCH_INTERFACE_RATE || 50);
const SECONDS = Number(process.env.BENCH_INTERFACE_SECONDS || 20);
const WARMUP = 20;
const TOKEN = "123456:AAbench_token_for_the_benchmark";
const SECRET = "bench_webhook_secret";
const ANSWER = "bench answer";

/** A stand-in Telegram Bot API: every method answers `{ok: true, result}`; sendMessage times are kept per chat. */
async function startBotApi(): Promise<{ url: string; firstText: Map<number, number>; close(): Promise<void> }> {
  const firstText = new Map<number, number>();
  let nextId = 1;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const method = (req.url ?? "").split("/").pop() ?? "";
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        // a form or an empty body: nothing to note
      }
      if (method === "sendMessage") {
        const chat = Number(body.chat_id);
        if (!firstText.has(chat)) firstText.set(chat, at);
      }
      const result =
        method === "sendMessage" || method === "editMessageText"
          ? {
              message_id: nextId++,
              date: Math.floor(Date.now() / 1000),
              chat: { id: Number(body.chat_id), type: "private" },
              text: body.text,
            }
          : true;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, firstText, close: () => new Promise((r) => server.close(() => r())) };
}

function update(i: number) {
  const chat = 1_000_000 + i;
  return {
    update_id: 500_000 + i,
    message: {
      message_id: i + 1,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: "private", first_name: "Bench" },
      from: { id: chat, is_bot: false, first_name: "Bench" },
      text: "hello",
    },
  };
}

export async function benchInterfaces(): Promise<void> {
  const total = WARMUP + Math.round(RATE * SECONDS);
  const models = await startModelServer();
  const api = await startBotApi();
  const dataDir = mkdtempSync(join(tmpdir(), "agno-bench-interfaces-"));
  let dev: DevServer | undefined;
  try {
    const script = await scriptModel(
      models.url,
      Array.from({ length: total }, () => ({ text: ANSWER })),
    );
    dev = await startDev({
      AGNO_DEV_DATA: dataDir,
      AGNO_DEV_INSPECTOR: "off",
      AGNO_DEV_CRON: "off",
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-bench",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_URL: api.url,
    });
    const url = `${dev.url}/telegram/webhook`;
    const send = async (i: number) => {
      const sent = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body: JSON.stringify(update(i)),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`the webhook answered ${res.status}: ${text.slice(0, 300)}`);
      return { sent, acked: performance.now() };
    };
    log(`interfaces: ${WARMUP} warm-up messages, then ${RATE}/s for ${SECONDS} s through npm run dev (Telegram)`);
    for (let i = 0; i < WARMUP; i++) await send(i);
    const load = loadavg()[0]!;
    const pending: Array<Promise<{ sent: number; acked: number }>> = [];
    const start = performance.now();
    for (let i = WARMUP; i < total; i++) {
      const due = start + ((i - WARMUP) * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(send(i));
    }
    const acks = await Promise.all(pending);
    const offeredSeconds = (performance.now() - start) / 1000;
    // Every measured message's first text, waiting for the queue to drain.
    const deadline = Date.now() + 300_000;
    while (api.firstText.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const ackMs = acks.map((a) => a.acked - a.sent);
    const firstTextMs = acks.flatMap((a, k) => {
      const at = api.firstText.get(1_000_000 + WARMUP + k);
      return at === undefined ? [] : [at - a.sent];
    });
    emit({
      bench: "interface_webhook_ack",
      interface: "telegram",
      runtime: "npm run dev (wrangler dev, embedded Postgres)",
      offered_per_second: RATE,
      achieved_per_second: round(acks.length / offeredSeconds, 1),
      samples: ackMs.length,
      p50_ms: round(median(ackMs), 2),
      p99_ms: round(percentile(ackMs, 99), 2),
      max_ms: round(Math.max(...ackMs), 2),
      load_average_at_start: round(load, 2),
    });
    emit({
      bench: "interface_first_text",
      interface: "telegram",
      model: "scripted, answers at once",
      samples: firstTextMs.length,
      answered: `${firstTextMs.length} of ${acks.length}`,
      p50_ms: round(median(firstTextMs), 1),
      p99_ms: round(percentile(firstTextMs, 99), 1),
    });
  } finally {
    await dev?.stop();
    await api.close();
    await models.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
