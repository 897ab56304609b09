import { z } from "zod";
import { tool, Toolkit, type Tool } from "../../tools/tool.js";
import { base64ToBytes } from "../../base64.js";
import { httpJson } from "../http-json.js";

const REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

export interface GithubToolsOptions {
  /** a token (fine-grained, with only the access the agent needs) */
  accessToken: string;
  /** default https://api.github.com (GitHub Enterprise: https://HOST/api/v3) */
  baseUrl?: string;
  /** only these repositories (`owner/name`), when given */
  allowedRepos?: string[];
  /** per request, in milliseconds (default 15 s) */
  timeoutMs?: number;
  /** largest answer read, in bytes (default 2 MiB) */
  maxBytes?: number;
  /** longest file text handed to the model (default 50,000 characters) */
  maxFileChars?: number;
  fetch?: typeof fetch;
  include?: string[];
  exclude?: string[];
}

type Json = Record<string, unknown>;

const issueOf = (i: Json) => ({
  number: i.number,
  title: i.title,
  state: i.state,
  body: i.body ?? null,
  user: (i.user as Json | null)?.login ?? null,
  labels: ((i.labels as Json[] | undefined) ?? []).map((l) => l.name),
  comments: i.comments,
  created_at: i.created_at,
  updated_at: i.updated_at,
  url: i.html_url,
});

const pullOf = (p: Json) => ({
  number: p.number,
  title: p.title,
  state: p.state,
  body: p.body ?? null,
  user: (p.user as Json | null)?.login ?? null,
  draft: p.draft ?? false,
  merged: p.merged ?? p.merged_at != null,
  head: (p.head as Json | undefined)?.ref,
  base: (p.base as Json | undefined)?.ref,
  created_at: p.created_at,
  updated_at: p.updated_at,
  url: p.html_url,
});

/**
 * agno's GithubTools, the part an agent uses most (repository, issues, pull requests, file
 * contents), over GitHub's REST API with fetch instead of PyGithub. Arguments are checked before
 * any request (repository names, file paths without `..`, the allowed repositories); GitHub's
 * error message is the tool error the model reads.
 */
export class GithubTools extends Toolkit {
  constructor(opts: GithubToolsOptions) {
    if (!opts.accessToken) throw new TypeError("GithubTools needs an accessToken");
    const base = (opts.baseUrl ?? "https://api.github.com").replace(/\/+$/, "");
    const maxFileChars = opts.maxFileChars ?? 50_000;
    const allowed = opts.allowedRepos?.map((r) => r.toLowerCase());
    const repoName = z
      .string()
      .regex(REPO, "owner/name")
      .refine((r) => !allowed || allowed.includes(r.toLowerCase()), "this repository is not one the agent may use")
      .describe("The full name of the repository, e.g. owner/name");
    const number = z.number().int().min(1);

    const gh = (path: string, signal: AbortSignal, init: { method?: string; body?: unknown } = {}) =>
      httpJson(
        `${base}${path}`,
        {
          method: init.method ?? "GET",
          headers: {
            authorization: `Bearer ${opts.accessToken}`,
            accept: "application/vnd.github+json",
            "x-github-api-version": "2022-11-28",
            "user-agent": "agno-edge",
            ...(init.body !== undefined && { "content-type": "application/json" }),
          },
          ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        },
        {
          service: "github",
          timeoutMs: opts.timeoutMs ?? 15_000,
          maxBytes: opts.maxBytes ?? 2 * 1024 * 1024,
          fetch: opts.fetch,
          signal,
        },
      ) as Promise<unknown>;
    const repoPath = (r: string) => `/repos/${r.split("/").map(encodeURIComponent).join("/")}`;

    const tools: Tool[] = [
      tool({
        name: "get_repository",
        description: "Get details of a repository.",
        parameters: z.object({ repo_name: repoName }),
        execute: async ({ repo_name }, ctx) => {
          const r = (await gh(repoPath(repo_name), ctx.signal)) as Json;
          return {
            name: r.full_name,
            description: r.description,
            url: r.html_url,
            stars: r.stargazers_count,
            forks: r.forks_count,
            open_issues: r.open_issues_count,
            default_branch: r.default_branch,
            language: r.language,
          };
        },
      }),
      tool({
        name: "list_issues",
        description: "List issues of a repository (pull requests left out).",
        parameters: z.object({
          repo_name: repoName,
          state: z.enum(["open", "closed", "all"]).default("open"),
          page: z.number().int().min(1).max(100).default(1),
          per_page: z.number().int().min(1).max(100).default(20),
        }),
        execute: async ({ repo_name, state, page, per_page }, ctx) => {
          const q = new URLSearchParams({ state, page: String(page), per_page: String(per_page) });
          const items = (await gh(`${repoPath(repo_name)}/issues?${q}`, ctx.signal)) as Json[];
          return items.filter((i) => !i.pull_request).map(issueOf);
        },
      }),
      tool({
        name: "get_issue",
        description: "Get an issue.",
        parameters: z.object({ repo_name: repoName, issue_number: number }),
        execute: async ({ repo_name, issue_number }, ctx) =>
          issueOf((await gh(`${repoPath(repo_name)}/issues/${issue_number}`, ctx.signal)) as Json),
      }),
      tool({
        name: "create_issue",
        description: "Create an issue in a repository.",
        parameters: z.object({
          repo_name: repoName,
          title: z.string().min(1).max(256),
          body: z.string().max(65_536).optional(),
        }),
        execute: async ({ repo_name, title, body }, ctx) =>
          issueOf(
            (await gh(`${repoPath(repo_name)}/issues`, ctx.signal, { method: "POST", body: { title, body } })) as Json,
          ),
      }),
      tool({
        name: "comment_on_issue",
        description: "Add a comment to an issue (or a pull request).",
        parameters: z.object({
          repo_name: repoName,
          issue_number: number,
          comment_body: z.string().min(1).max(65_536),
        }),
        execute: async ({ repo_name, issue_number, comment_body }, ctx) => {
          const c = (await gh(`${repoPath(repo_name)}/issues/${issue_number}/comments`, ctx.signal, {
            method: "POST",
            body: { body: comment_body },
          })) as Json;
          return { id: c.id, url: c.html_url, created_at: c.created_at };
        },
      }),
      tool({
        name: "get_pull_requests",
        description: "List pull requests of a repository.",
        parameters: z.object({
          repo_name: repoName,
          state: z.enum(["open", "closed", "all"]).default("open"),
          max_results: z.number().int().min(1).max(100).default(20),
        }),
        execute: async ({ repo_name, state, max_results }, ctx) => {
          const q = new URLSearchParams({ state, per_page: String(max_results) });
          return ((await gh(`${repoPath(repo_name)}/pulls?${q}`, ctx.signal)) as Json[]).map(pullOf);
        },
      }),
      tool({
        name: "get_pull_request",
        description: "Get a pull request.",
        parameters: z.object({ repo_name: repoName, pr_number: number }),
        execute: async ({ repo_name, pr_number }, ctx) =>
          pullOf((await gh(`${repoPath(repo_name)}/pulls/${pr_number}`, ctx.signal)) as Json),
      }),
      tool({
        name: "get_file_content",
        description: "Get the content of a file in a repository.",
        parameters: z.object({
          repo_name: repoName,
          path: z
            .string()
            .min(1)
            .max(1024)
            .refine((p) => !p.split("/").some((s) => s === ".." || s === "." || s === "") && !p.includes("\\"), {
              message: "a path inside the repository, without `.`, `..` or empty segments",
            }),
          ref: z
            .string()
            .regex(/^[A-Za-z0-9._/-]{1,255}$/, "a branch, tag or commit")
            .optional(),
        }),
        execute: async ({ repo_name, path, ref }, ctx) => {
          const q = ref ? `?${new URLSearchParams({ ref })}` : "";
          const f = (await gh(
            `${repoPath(repo_name)}/contents/${path.split("/").map(encodeURIComponent).join("/")}${q}`,
            ctx.signal,
          )) as Json | Json[];
          if (Array.isArray(f) || f.type !== "file") throw new Error(`${path} is not a file`);
          if (f.encoding !== "base64" || typeof f.content !== "string")
            throw new Error(`${path} is too large for the contents API`);
          const text = new TextDecoder().decode(base64ToBytes(f.content.replace(/\s/g, "")));
          const truncated = text.length > maxFileChars;
          return {
            path: f.path,
            size: f.size,
            sha: f.sha,
            content: truncated ? text.slice(0, maxFileChars) : text,
            ...(truncated && { truncated: true }),
          };
        },
      }),
    ];
    super({ id: "github", name: "github", tools, include: opts.include, exclude: opts.exclude });
  }
}
