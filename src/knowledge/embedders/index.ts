export { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./ai-sdk-embedder.js";
export { googleEmbedder } from "./google-embedder.js";
export { mistralEmbedder } from "./mistral-embedder.js";
export { openAICompatibleEmbedder } from "./openai-compatible-embedder.js";
export { openAIEmbedder } from "./openai-embedder.js";
export { WorkersAIEmbedder } from "./workers-ai-embedder.js";
export { DEFAULT_EMBEDDING_MODELS, embedderFromSpec } from "./embedder-spec.js";
