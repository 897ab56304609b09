/**
 * JWT verification cost in process: `JwtVerifier.verify` (src/os/auth/jwt.ts, what the auth
 * middleware awaits per request) timed one call at a time, per algorithm, with the keys the HTTP
 * figures configure. This is Node's WebCrypto (OpenSSL); workerd's is BoringSSL, so the HTTP
 * figures' difference between a JWT and the security key is the figure for the runtime itself.
 */
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { JWT_ALGS, type JwtMaterial } from "./jwt-keys.js";
import { emit, log, mean, median, percentile, round } from "./util.js";

const ROUNDS = 10;
const PER_ROUND = 500;
const WARMUP = 500;

/** One timed sample per call, in microseconds. */
async function timeCalls(fn: () => Promise<unknown>, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    into.push((performance.now() - started) * 1000);
  }
}

export async function benchJwtVerify(material: JwtMaterial): Promise<void> {
  const verifier = new JwtVerifier(material.verificationKeys);
  const cases: [string, () => Promise<unknown>][] = [
    // The same await with nothing behind it: what the clock and a resolved promise cost.
    ["noop", async () => undefined],
    ...JWT_ALGS.map((alg): [string, () => Promise<unknown>] => [alg, () => verifier.verify(material.tokens[alg])]),
  ];
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (const [, fn] of cases) await timeCalls(fn, WARMUP, []); // imports the keys, warms the JIT
  log(
    `JWT verify in process: ${cases.map(([n]) => n).join(", ")}; ${ROUNDS} rounds of ${PER_ROUND} each, taking turns`,
  );
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < cases.length; i++) {
      const [name, fn] = cases[(i + r) % cases.length]!;
      await timeCalls(fn, PER_ROUND, samples.get(name)!);
    }
  }
  const noop = median(samples.get("noop")!);
  for (const [name] of cases) {
    const xs = samples.get(name)!;
    emit({
      bench: "jwt_verify_in_process",
      alg: name,
      n: xs.length,
      warmup: WARMUP,
      median_us: round(median(xs), 2),
      p99_us: round(percentile(xs, 99), 2),
      mean_us: round(mean(xs), 2),
      ...(name !== "noop" && { median_above_noop_us: round(median(xs) - noop, 2) }),
      runtime: `node ${process.version}`,
    });
  }
}
