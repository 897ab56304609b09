import { z } from "zod";
import { tool, Toolkit } from "../../tools/tool.js";
import { httpJson } from "../http-json.js";

export interface ResendToolsOptions {
  apiKey: string;
  /** the sender, on a domain verified with Resend (agno's `from_email`) */
  fromEmail: string;
  /** only recipients on these domains (e.g. `example.com`), when given */
  allowedDomains?: string[];
  /** default https://api.resend.com */
  baseUrl?: string;
  /** longest body sent (default 50,000 characters) */
  maxBodyChars?: number;
  /** per request, in milliseconds (default 15 s) */
  timeoutMs?: number;
  fetch?: typeof fetch;
  include?: string[];
  exclude?: string[];
}

/**
 * agno's ResendTools: `send_email` through Resend's HTTP API (`POST /emails`). The recipient is
 * one address, checked (and matched against `allowedDomains`) before anything is sent.
 */
export class ResendTools extends Toolkit {
  constructor(opts: ResendToolsOptions) {
    if (!opts.apiKey) throw new TypeError("ResendTools needs an apiKey");
    if (!opts.fromEmail) throw new TypeError("ResendTools needs a fromEmail");
    const base = (opts.baseUrl ?? "https://api.resend.com").replace(/\/+$/, "");
    const domains = opts.allowedDomains?.map((d) => d.toLowerCase());
    super({
      id: "resend_tools",
      name: "resend_tools",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "send_email",
          description:
            "Send an email using the Resend API. Returns if the email was sent successfully or an error message.",
          parameters: z.object({
            to_email: z
              .email()
              .max(254)
              .refine(
                (e) => !domains || domains.includes(e.split("@").pop()!.toLowerCase()),
                "this recipient's domain is not one the agent may email",
              )
              .describe("The email address to send the email to."),
            subject: z.string().min(1).max(998).describe("The subject of the email."),
            body: z
              .string()
              .min(1)
              .max(opts.maxBodyChars ?? 50_000)
              .describe("The body of the email (HTML)."),
          }),
          execute: async ({ to_email, subject, body }, ctx) => {
            const sent = (await httpJson(
              `${base}/emails`,
              {
                method: "POST",
                headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json" },
                body: JSON.stringify({ from: opts.fromEmail, to: [to_email], subject, html: body }),
              },
              {
                service: "resend",
                timeoutMs: opts.timeoutMs ?? 15_000,
                maxBytes: 64 * 1024,
                fetch: opts.fetch,
                signal: ctx.signal,
              },
            )) as { id?: string };
            return `Email sent to ${to_email} successfully (id ${sent.id ?? "unknown"}).`;
          },
        }),
      ],
    });
  }
}
