import { Knowledge } from "../knowledge/knowledge.js";
import type { Embedder } from "../knowledge/embedder.js";
import { runtimeHostLookup } from "../knowledge/remote/runtime-lookup.js";
import { safeFetcher } from "../knowledge/remote/safe-fetch.js";
import { PgVector } from "../knowledge/vectordb/pgvector/pg-vector.js";

/**
 * The example assistant's knowledge base: documents uploaded at `POST /knowledge/content` (files,
 * text or URLs), chunked, embedded with `embedder` and kept in pgvector in the deployment's own
 * database (`npm run dev`: the embedded Postgres, which loads pgvector), searched by the assistant.
 */
export function exampleKnowledge(embedder: Embedder): Knowledge {
  return new Knowledge({
    id: "assistant-knowledge",
    name: "Assistant knowledge",
    description: "Documents the example assistant searches: upload them at POST /knowledge/content",
    vectorDb: new PgVector({ tableName: "assistant_knowledge", embedder, searchType: "hybrid" }),
    embedder,
    // on Node (npm run dev) host names are resolved and checked too; workerd blocks private targets itself
    fetcher: safeFetcher({ lookup: runtimeHostLookup() }),
  });
}
