import type { MediaRecord } from "../models/message.js";

/** Media a tool produced, under agno's RunOutput and Message field names. */
export interface ToolMedia {
  images?: MediaRecord[];
  audio?: MediaRecord[];
  videos?: MediaRecord[];
  files?: MediaRecord[];
}

/**
 * What a tool returns when it produces media beside its text (agno's ToolResult): the model
 * reads `content` as the call's answer, the media join the run's output (`images`, …) and are
 * shown to the model in a user message after the tool answers, as agno does.
 *
 * @example
 * execute: async () => new ToolResult({ content: "Chart drawn", images: [{ id: crypto.randomUUID(), mime_type: "image/png", content: pngBase64 }] })
 */
export class ToolResult implements ToolMedia {
  readonly content: string;
  readonly images?: MediaRecord[];
  readonly audio?: MediaRecord[];
  readonly videos?: MediaRecord[];
  readonly files?: MediaRecord[];

  constructor(opts: { content: string } & ToolMedia) {
    this.content = opts.content;
    for (const field of ["images", "audio", "videos", "files"] as const)
      if (opts[field]?.length) this[field] = opts[field];
  }

  /** Where the result becomes JSON (a CodeMode cell reads it), it is its text. */
  toJSON(): string {
    return this.content;
  }

  get media(): ToolMedia | undefined {
    const out: ToolMedia = {};
    for (const field of ["images", "audio", "videos", "files"] as const) if (this[field]) out[field] = this[field];
    return Object.keys(out).length > 0 ? out : undefined;
  }
}
