/** Splits `"provider:model-id"`; the id may itself hold colons (`ollama:llama3.2:3b`) and may be empty (`"groq"`). */
export function splitModelSpec(spec: string): { provider: string; modelId: string } {
  const at = spec.indexOf(":");
  return at === -1 ? { provider: spec, modelId: "" } : { provider: spec.slice(0, at), modelId: spec.slice(at + 1) };
}
