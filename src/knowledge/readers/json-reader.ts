import { ValidationError } from "../../errors.js";
import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName, inputText } from "./decode.js";

/** agno's JSONReader: a list gives one document per item (meta_data.page, 1-based), anything else one document. */
export class JsonReader implements Reader {
  readonly id = "json";
  readonly name = "JSON Reader";
  readonly description = "Processes JSON data structures and API responses with nested object handling";
  readonly accepts = { extensions: [".json"], contentTypes: ["application/json", "text/json"] };
  readonly defaultChunker = "FixedSizeChunker";
  readonly chunkers = ["FixedSizeChunker", "RecursiveChunker", "DocumentChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    let data: unknown;
    try {
      data = JSON.parse(inputText(input));
    } catch (err) {
      throw new ValidationError(`content is not valid JSON: ${(err as Error).message}`, "file");
    }
    const name = docName(input);
    const items = Array.isArray(data) ? data : [data];
    return items.map((item, i) => ({
      name,
      id: crypto.randomUUID(),
      meta_data: { ...input.metadata, page: i + 1 },
      content: JSON.stringify(item),
    }));
  }
}
