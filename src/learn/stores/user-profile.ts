import { z } from "zod";
import type { Db } from "../../db/port.js";
import { tool, type Tool } from "../../tools/tool.js";
import type { UserProfileConfig } from "../config.js";
import { profileOf } from "../content-shape.js";
import { conversationText, extractJson } from "../extract.js";
import type { UserProfile } from "../schemas.js";
import { buildLearningId, isoNow } from "../utils.js";
import { UserKeyedStore } from "./user-keyed-store.js";
import type { LearningScope, LearningStore, ProcessInput } from "./protocol.js";

/** The profile fields a model may set. */
const FIELDS = { name: "User's full name", preferred_name: "How the user likes to be addressed" } as const;
type Field = keyof typeof FIELDS;

/** Tool parameters, made once: their JSON Schemas are converted once per isolate. */
const UPDATE_PROFILE = z.object({
  name: z.string().max(500).optional().describe(FIELDS.name),
  preferred_name: z.string().max(500).optional().describe(FIELDS.preferred_name),
});

const SCHEMA = {
  name: "user_profile",
  schema: {
    type: "object",
    properties: {
      name: { type: ["string", "null"] },
      preferred_name: { type: ["string", "null"] },
    },
    required: ["name", "preferred_name"],
    additionalProperties: false,
  },
};

const DEFAULT_INSTRUCTIONS =
  "You maintain a user's profile: their full name and the name they like to be called. Read the conversation " +
  "and the stored profile. Answer with JSON only: a field's new value where the user stated or corrected it, " +
  "null where nothing new was said. Never guess.";

/**
 * User profile (agno's UserProfileStore): one `user_profile` row per user, keyed
 * `user_profile_<user_id>`. In `always` mode a model call after each run updates it; in
 * `agentic` mode the agent calls `update_profile`.
 */
export class UserProfileStore extends UserKeyedStore<UserProfileConfig, UserProfile> implements LearningStore {
  readonly learningType = "user_profile";

  constructor(config: UserProfileConfig = {}) {
    super(config);
  }

  protected get agentCanUpdate(): boolean {
    return this.config.agentCanUpdateProfile !== false;
  }

  protected read(content: unknown): UserProfile | null {
    return profileOf(content);
  }

  async save(
    scope: LearningScope & { userId: string },
    changes: Partial<Record<Field, string | null>>,
  ): Promise<UserProfile> {
    const existing = await this.get(scope.db, scope.userId);
    const now = isoNow();
    const profile: UserProfile = {
      ...(existing ?? { user_id: scope.userId, created_at: now }),
      agent_id: existing?.agent_id ?? scope.agentId,
      team_id: existing?.team_id ?? scope.teamId ?? null,
      updated_at: now,
    };
    for (const field of Object.keys(FIELDS) as Field[]) {
      const value = changes[field];
      if (typeof value === "string" && value.trim() !== "") profile[field] = value.trim().slice(0, 500);
    }
    await scope.db.upsertLearning({
      learning_id: (await buildLearningId(this.learningType, { userId: scope.userId }))!,
      learning_type: this.learningType,
      user_id: scope.userId,
      agent_id: scope.agentId,
      team_id: scope.teamId ?? null,
      content: profile,
    });
    return profile;
  }

  async recall(scope: LearningScope): Promise<UserProfile | null> {
    return scope.userId ? this.get(scope.db, scope.userId) : null;
  }

  buildContext(data: unknown): string {
    const profile = profileOf(data);
    const parts = profile
      ? (Object.keys(FIELDS) as Field[])
          .filter((f) => typeof profile[f] === "string" && profile[f])
          .map((f) => `${f.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase())}: ${String(profile[f])}`)
      : [];
    if (parts.length === 0)
      return this.exposesTools
        ? "<user_profile>\nNo profile information saved about this user yet.\n</user_profile>"
        : "";
    return [
      "<user_profile>",
      ...parts,
      "",
      "<profile_application_guidelines>",
      "Apply this knowledge naturally - respond as if you inherently know this information,",
      "exactly as a colleague would recall shared history without narrating their thought process.",
      "",
      "- Use profile information to personalize responses appropriately",
      '- Never say "based on your profile" or "I see that" - just use the information naturally',
      "- Current conversation always takes precedence over stored profile data",
      "</profile_application_guidelines>",
      "</user_profile>",
    ].join("\n");
  }

  instructions(): string {
    if (!this.exposesTools) return "";
    return (
      "<user_profile_instructions>\n" +
      "Use `update_profile` to set structured profile fields (name, preferred_name) when the user states them.\n" +
      "</user_profile_instructions>"
    );
  }

  tools(db: () => Db | undefined, agentId: string): Tool[] {
    if (!this.exposesTools) return [];
    return [
      tool({
        name: "update_profile",
        description: "Update the user's profile fields. Only pass the fields the user stated.",
        parameters: UPDATE_PROFILE,
        execute: async (args, ctx) => {
          const store = db();
          if (!ctx.userId || !store) return "No user is known for this run: the profile was not updated.";
          await this.save({ db: store, userId: ctx.userId, sessionId: ctx.sessionId, agentId }, args);
          return "Profile updated";
        },
      }),
    ];
  }

  async process(input: ProcessInput): Promise<void> {
    if (this.mode !== "always" || !input.userId) return;
    const conversation = conversationText(input.messages);
    if (!conversation.trim()) return;
    const existing = await this.get(input.db, input.userId);
    const system = [this.config.instructions ?? DEFAULT_INSTRUCTIONS, this.config.additionalInstructions]
      .filter(Boolean)
      .join("\n\n");
    const answer = await extractJson(
      this.config.model ?? input.model,
      system,
      {
        stored_profile: { name: existing?.name ?? null, preferred_name: existing?.preferred_name ?? null },
        conversation,
      },
      SCHEMA,
      input.onModelCall,
    );
    const changes: Partial<Record<Field, string>> = {};
    for (const field of Object.keys(FIELDS) as Field[]) {
      const value = answer[field];
      if (typeof value === "string" && value.trim() && value.trim() !== existing?.[field]) changes[field] = value;
    }
    if (Object.keys(changes).length > 0) await this.save({ ...input, userId: input.userId }, changes);
  }
}
