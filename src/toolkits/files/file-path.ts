import { z } from "zod";

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * A file name as the model may give it: a relative path of `/`-separated segments of
 * `[A-Za-z0-9._-]`, none `.` or `..`. Absolute paths, backslashes, percent-encoding and dot
 * segments are refused outright (never normalised), so no spelling reaches outside the prefix.
 */
export const filePath = z
  .string()
  .min(1)
  .max(512)
  .superRefine((p, ctx) => {
    const problem = pathProblem(p);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export function pathProblem(p: string): string | null {
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p))
    return "absolute paths are not allowed: use a path relative to your files";
  if (p.includes("\\")) return "backslashes are not allowed in file paths";
  if (p.includes("%")) return "percent-encoded file paths are not allowed";
  for (const segment of p.split("/")) {
    if (segment === "..") return "`..` is not allowed in file paths";
    if (segment === "." || segment === "") return "empty or `.` segments are not allowed in file paths";
    if (!SEGMENT.test(segment)) return "file paths are made of letters, digits, `.`, `_`, `-` and `/`";
  }
  return null;
}

/** A folder as `list_files` takes it: `.` (all files) or a relative path. */
export const folderPath = z
  .string()
  .max(512)
  .default(".")
  .superRefine((p, ctx) => {
    const trimmed = p.replace(/\/+$/, "");
    if (trimmed === "." || trimmed === "") return;
    const problem = pathProblem(trimmed);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
