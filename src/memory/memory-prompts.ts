import type { MemoryRecord } from "../db/types.js";
import type { MemoryToolSwitches } from "./memory-tools.js";

/** agno's default criteria for what is worth remembering. */
export const DEFAULT_MEMORY_CAPTURE_INSTRUCTIONS = `Memories should capture personal information about the user that is relevant to the current conversation, such as:
- Personal facts: name, age, occupation, location, interests, and preferences
- Opinions and preferences: what the user likes, dislikes, enjoys, or finds frustrating
- Significant life events or experiences shared by the user
- Important context about the user's current situation, challenges, or goals
- Any other details that offer meaningful insight into the user's personality, perspective, or needs
`;

/** agno's memory manager system message (MemoryManager.get_system_message), with the existing memories and the tools on offer. */
export function memoryManagerSystemMessage(
  existing: MemoryRecord[],
  on: MemoryToolSwitches,
  opts: { captureInstructions?: string; additionalInstructions?: string },
): string {
  const lines = [
    "You are a Memory Manager that is responsible for managing information and preferences about the user. " +
      "You will be provided with a criteria for memories to capture in the <memories_to_capture> section and a list of existing memories in the <existing_memories> section.",
    "",
    "## When to add or update memories",
    "- Your first task is to decide if a memory needs to be added, updated, or deleted based on the user's message OR if no changes are needed.",
    "- If the user's message meets the criteria in the <memories_to_capture> section and that information is not already captured in the <existing_memories> section, you should capture it as a memory.",
    "- If the users messages does not meet the criteria in the <memories_to_capture> section, no memory updates are needed.",
    "- If the existing memories in the <existing_memories> section capture all relevant information, no memory updates are needed.",
    "",
    "## How to add or update memories",
    "- If you decide to add a new memory, create memories that captures key information, as if you were storing it for future reference.",
    "- Memories should be a brief, third-person statements that encapsulate the most important aspect of the user's input, without adding any extraneous information.",
    "  - Example: If the user's message is 'I'm going to the gym', a memory could be `John Doe goes to the gym regularly`.",
    "  - Example: If the user's message is 'My name is John Doe', a memory could be `User's name is John Doe`.",
    "- Don't make a single memory too long or complex, create multiple memories if needed to capture all the information.",
    "- Don't repeat the same information in multiple memories. Rather update existing memories if needed.",
    "- If a user asks for a memory to be updated or forgotten, remove all reference to the information that should be forgotten. Don't say 'The user used to like ...`",
    "- When updating a memory, append the existing memory with new information rather than completely overwriting it.",
    "- When a user's preferences change, update the relevant memories to reflect the new preferences but also capture what the user's preferences used to be and what has changed.",
    "",
    "## Criteria for creating memories",
    "Use the following criteria to determine if a user's message should be captured as a memory.",
    "",
    "<memories_to_capture>",
    opts.captureInstructions ?? DEFAULT_MEMORY_CAPTURE_INSTRUCTIONS,
    "</memories_to_capture>",
    "",
    "## Updating memories",
    "You will also be provided with a list of existing memories in the <existing_memories> section. You can:",
    "  - Decide to make no changes.",
  ];
  if (on.add) lines.push("  - Decide to add a new memory, using the `add_memory` tool.");
  if (on.update) lines.push("  - Decide to update an existing memory, using the `update_memory` tool.");
  if (on.delete) lines.push("  - Decide to delete an existing memory, using the `delete_memory` tool.");
  if (on.clear) lines.push("  - Decide to clear all memories, using the `clear_memory` tool.");
  lines.push(
    "You can call multiple tools in a single response if needed. ",
    "Only add or update memories if it is necessary to capture key information provided by the user.",
  );
  if (existing.length > 0) {
    lines.push("\n<existing_memories>");
    for (const m of existing) lines.push(`ID: ${m.memory_id}`, `Memory: ${m.memory}`, "");
    lines.push("</existing_memories>");
  }
  if (opts.additionalInstructions) lines.push(opts.additionalInstructions);
  return lines.join("\n");
}

/** The memories as agno's agent puts them in its system message (add_memories_to_context). */
export function memoriesForContext(memories: MemoryRecord[], agentic: boolean): string {
  let text =
    memories.length > 0
      ? "You have access to user info and preferences from previous interactions that you can use to personalize your response:\n\n" +
        `<memories_from_previous_interactions>${memories.map((m) => `\n- ${m.memory}`).join("")}\n</memories_from_previous_interactions>\n\n` +
        "Note: this information is from previous interactions and may be updated in this conversation. " +
        "You should always prefer information from this conversation over the past memories.\n"
      : "You have the capability to retain memories from previous interactions with the user, " +
        "but have not had any interactions with the user yet.\n";
  if (agentic)
    text +=
      "\n<updating_user_memories>\n" +
      "- You have access to the `update_user_memory` tool that you can use to add new memories, update existing memories, delete memories, or clear all memories.\n" +
      "- If the user's message includes information that should be captured as a memory, use the `update_user_memory` tool to update your memory database.\n" +
      "- Memories should include details that could personalize ongoing interactions with the user.\n" +
      "- Use this tool to add new memories or update existing memories that you identify in the conversation.\n" +
      "- Use this tool if the user asks to update their memory, delete a memory, or clear all memories.\n" +
      "- If you use the `update_user_memory` tool, remember to pass on the response to the user.\n" +
      "</updating_user_memories>\n";
  return text;
}

/** A session's summary as agno's agent puts it in its system message (add_session_summary_to_context). */
export function sessionSummaryForContext(summary: string): string {
  return (
    "Here is a brief summary of your previous interactions:\n\n" +
    `<summary_of_previous_interactions>\n${summary}\n</summary_of_previous_interactions>\n\n` +
    "Note: this information is from previous interactions and may be outdated. " +
    "You should ALWAYS prefer information from this conversation over the past summary.\n"
  );
}
