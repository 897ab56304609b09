/**
 * A self-contained HTML page for an OpenAPI document: no scripts, no fonts or styles from a CDN,
 * so it works offline and under a strict Content-Security-Policy.
 */

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
  "x-required-scope"?: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A schema in one line: its `$ref` name, or its type, with enum values and bounds. */
function typeOf(schema: unknown): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === "string") return s.$ref.split("/").pop()!;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return (s.anyOf as unknown[]).map(typeOf).join(" | ");
  const bounds = [
    s.minimum !== undefined ? `≥ ${s.minimum}` : "",
    s.maximum !== undefined ? `≤ ${s.maximum}` : "",
    s.maxLength !== undefined ? `≤ ${s.maxLength} chars` : "",
  ].filter(Boolean);
  const type = s.type === "array" ? `${typeOf(s.items)}[]` : String(s.type ?? "object");
  return bounds.length ? `${type} (${bounds.join(", ")})` : type;
}

function fields(schema: unknown, components: Record<string, unknown>): string {
  let s = schema as Record<string, unknown> | undefined;
  if (s && typeof s.$ref === "string") s = components[s.$ref.split("/").pop()!] as Record<string, unknown> | undefined;
  const props = s?.properties as Record<string, unknown> | undefined;
  if (!props) return `<p><code>${escape(typeOf(schema))}</code></p>`;
  const required = new Set((s?.required as string[] | undefined) ?? []);
  const rows = Object.entries(props).map(
    ([name, p]) =>
      `<tr><td><code>${escape(name)}</code>${required.has(name) ? " *" : ""}</td><td><code>${escape(typeOf(p))}</code></td></tr>`,
  );
  const note = typeof s?.description === "string" ? `<p>${escape(s.description)}</p>` : "";
  return `${note}<table>${rows.join("")}</table>`;
}

function operation(method: string, path: string, op: Operation, components: Record<string, unknown>): string {
  const params = (op.parameters ?? []).map(
    (p) =>
      `<tr><td><code>${escape(p.name)}</code>${p.required ? " *" : ""}</td><td>${p.in}</td><td><code>${escape(typeOf(p.schema))}</code></td></tr>`,
  );
  const body = op.requestBody?.content;
  const responses = Object.entries(op.responses ?? {}).map(
    ([code, r]) => `<li><b>${code}</b> ${escape(r.description ?? "")}</li>`,
  );
  return `<section id="${escape(`${method}-${path}`)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary ?? "")}</p>${op.description ? `<p>${escape(op.description)}</p>` : ""}
<p class="scope">${op["x-required-scope"] ? `Scope: <code>${escape(op["x-required-scope"])}</code>` : "No credentials needed"}</p>
${params.length ? `<h4>Parameters</h4><table>${params.join("")}</table>` : ""}
${body ? `<h4>Body (${Object.keys(body).map(escape).join(", ")})</h4>${fields(Object.values(body)[0]?.schema, components)}` : ""}
<h4>Responses</h4><ul>${responses.join("")}</ul>
</section>`;
}

export function docsPage(doc: Record<string, unknown>): string {
  const info = (doc.info ?? {}) as { title?: string; version?: string; description?: string };
  const components = ((doc.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<
    string,
    unknown
  >;
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operation(method, path, op, components));
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${escape(tag)}</h2>${ops.join("\n")}`).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(info.title ?? "API")}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-top:1px solid #ddd;padding:.5rem 0}table{border-collapse:collapse}td{padding:.1rem .8rem .1rem 0;vertical-align:top}
.m{font:bold 12px monospace;padding:2px 6px;border-radius:3px;color:#fff;background:#555}.get{background:#2a7}.post{background:#27c}
.patch{background:#c80}.delete{background:#c33}.scope{color:#555}code{background:#f4f4f4;padding:0 3px}</style></head>
<body><h1>${escape(info.title ?? "API")} <small>${escape(info.version ?? "")}</small></h1>
<p>${escape(info.description ?? "")} The machine-readable document is <a href="openapi.json">openapi.json</a>.</p>
${sections}</body></html>`;
}
