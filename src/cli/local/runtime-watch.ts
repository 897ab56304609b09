import { execFile } from "node:child_process";

/** pid -> [parent pid, command name] for every process, from `ps` (Linux and macOS alike). */
function processTable(): Promise<Map<number, [number, string]>> {
  return new Promise((resolve) => {
    execFile("ps", ["-A", "-o", "pid=,ppid=,comm="], (err, stdout) => {
      const table = new Map<number, [number, string]>();
      if (err) return resolve(table);
      for (const line of stdout.split("\n")) {
        const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
        if (m) table.set(Number(m[1]), [Number(m[2]), m[3]!.trim()]);
      }
      resolve(table);
    });
  });
}

/** The pids of the processes below `root` (its children, theirs, ...). */
export async function descendants(root: number): Promise<Array<{ pid: number; name: string }>> {
  const table = await processTable();
  const found: Array<{ pid: number; name: string }> = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, [ppid, name]] of table) {
      if (parents.has(ppid) && !parents.has(pid)) {
        parents.add(pid);
        found.push({ pid, name });
        grew = true;
      }
    }
  }
  return found;
}

/** SIGKILLs those of `processes` still running under the same name (left behind by a parent that died). */
export async function killSurvivors(processes: Array<{ pid: number; name: string }>): Promise<void> {
  const table = await processTable();
  for (const { pid, name } of processes) {
    if (table.get(pid)?.[1] !== name) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Watches the workerd processes below `root()` (wrangler's, or this process's for the in-process
 * Worker). wrangler does not notice when one dies: it keeps running and the Worker answers nothing.
 * When a workerd it saw is gone, the runtime is probed; if it does not answer, `onDead` restarts it.
 * A workerd replaced on purpose (a reload) leaves a runtime that answers the probe, so nothing happens.
 */
export function watchRuntime(opts: {
  root: () => number | undefined;
  probe: () => Promise<boolean>;
  onDead: () => Promise<void>;
  everyMs?: number;
}) {
  let known = new Set<number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    const root = opts.root();
    if (root !== undefined) {
      const workerd = new Set((await descendants(root)).filter((p) => /workerd/.test(p.name)).map((p) => p.pid));
      const lost = [...known].some((pid) => !workerd.has(pid));
      known = workerd;
      if (lost && !stopped) {
        let alive = false;
        // A reload's new workerd may take a while to answer (wrangler holds requests until it does).
        for (let i = 0; i < 4 && !alive; i++) alive = await opts.probe();
        if (!alive && !stopped) {
          known = new Set();
          await opts.onDead();
        }
      }
    }
    if (!stopped) timer = setTimeout(() => void tick(), opts.everyMs ?? 1000);
  };
  timer = setTimeout(() => void tick(), opts.everyMs ?? 1000);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
