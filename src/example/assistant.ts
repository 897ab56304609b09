import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { Model } from "../models/model.js";
import { tool } from "../tools/tool.js";

const currentTime = tool({
  name: "get_current_time",
  description: "The current date and time in an IANA time zone",
  parameters: z.object({ timezone: z.string().default("UTC").describe("IANA zone, e.g. Europe/Paris") }),
  execute: ({ timezone }) => {
    try {
      return new Intl.DateTimeFormat("en-GB", { dateStyle: "full", timeStyle: "long", timeZone: timezone }).format(
        new Date(),
      );
    } catch {
      throw new Error(`unknown time zone ${timezone}`);
    }
  },
});

const rollDice = tool({
  name: "roll_dice",
  description: "Roll dice and return each result",
  parameters: z.object({
    count: z.number().int().min(1).max(20).default(1),
    sides: z.number().int().min(2).max(1000).default(6),
  }),
  execute: ({ count, sides }) => Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides)),
});

// Pauses the run until a person confirms (human in the loop), then keeps the note in the session.
const saveNote = tool({
  name: "save_note",
  description: "Save a note in this conversation for later; the user confirms first",
  parameters: z.object({ note: z.string().min(1).max(2000) }),
  requiresConfirmation: true,
  execute: ({ note }, ctx) => {
    const notes = Array.isArray(ctx.sessionState.notes) ? (ctx.sessionState.notes as string[]) : [];
    ctx.sessionState.notes = [...notes, note];
    return `saved (${notes.length + 1} notes)`;
  },
});

// Pauses the run until the user says when (agno's user input: the model proposes the reminder, the
// person fills in the field it must not guess), then keeps the reminder in the session.
const setReminder = tool({
  name: "set_reminder",
  description: "Set a reminder in this conversation; the user fills in when",
  parameters: z.object({
    text: z.string().min(1).max(500).describe("what to be reminded of"),
    when: z.string().max(200).optional().describe("when, in the user's words"),
  }),
  requiresUserInput: true,
  userInputFields: ["when"],
  execute: ({ text, when }, ctx) => {
    if (!when?.trim()) throw new Error("the reminder needs a time");
    const reminders = Array.isArray(ctx.sessionState.reminders) ? (ctx.sessionState.reminders as object[]) : [];
    ctx.sessionState.reminders = [...reminders, { text, when }];
    return `reminder set: ${text}, ${when}`;
  },
});

// Pauses the run until an approver decides (GET /approvals, POST /approvals/{id}/resolve); the
// decision continues the run in the background.
const forgetNotes = tool({
  name: "forget_notes",
  description: "Forget every note saved in this conversation; an approver decides first",
  parameters: z.object({}),
  requiresApproval: true,
  approvalExpiresIn: 24 * 3600,
  execute: (_args, ctx) => {
    const notes = Array.isArray(ctx.sessionState.notes) ? (ctx.sessionState.notes as string[]) : [];
    ctx.sessionState.notes = [];
    return `forgot ${notes.length} notes`;
  },
});

/**
 * The example agent `npm run dev` serves: a model from the environment and four small tools;
 * with `offloadToolResults`, tool results over 16,000 characters go to the runtime's bucket; with
 * `knowledge`, it searches the documents uploaded there (`search_knowledge_base`).
 */
export function exampleAssistant(
  model: Model,
  opts: { offloadToolResults?: boolean; heartbeatSeconds?: number; knowledge?: Knowledge } = {},
): Agent {
  return new Agent({
    id: "assistant",
    name: "Assistant",
    description:
      "A helpful assistant with a clock, dice, notes and reminders (saving a note asks for confirmation, a reminder asks when, forgetting the notes asks an approver).",
    model,
    instructions: [
      "Answer briefly.",
      "Use the tools for the time and for randomness; never guess them.",
      "Save a note when the user asks you to remember something.",
      ...(opts.knowledge ? ["Search the knowledge base before answering questions about documents."] : []),
    ],
    tools: [currentTime, rollDice, saveNote, setReminder, forgetNotes],
    addHistoryToContext: true,
    offloadToolResults: opts.offloadToolResults ?? false,
    heartbeatSeconds: opts.heartbeatSeconds,
    ...(opts.knowledge ? { knowledge: opts.knowledge, searchKnowledge: true } : {}),
  });
}
