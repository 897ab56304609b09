import { describe, expect, it } from "vitest";
import { readEnvConfig } from "../../src/worker/env-config.js";

describe("tracing's environment", () => {
  it("is off unless configured; AGNO_TRACING picks the exporters, OTEL_ variables the collector", () => {
    expect(readEnvConfig({}).ok && readEnvConfig({})).toMatchObject({ config: {} });
    const off = readEnvConfig({});
    expect(off.ok && off.config.tracing).toBeUndefined();
    const both = readEnvConfig({
      DATABASE_URL: "postgres://x",
      AGNO_TRACING: "both",
      AGNO_TRACE_SAMPLE_RATIO: "0.25",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=s%3Dcret",
      OTEL_SERVICE_NAME: "support",
    });
    expect(both.ok && both.config.tracing).toEqual({
      exporters: ["db", "otlp"],
      sampleRatio: 0.25,
      otlp: {
        endpoint: "http://collector:4318",
        headers: { "api-key": "s=cret" },
        timeoutMs: 10_000,
        serviceName: "support",
      },
    });
    // A collector alone turns the OTLP exporter on.
    const otlp = readEnvConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example", OTEL_EXPORTER_OTLP_TIMEOUT: "500" });
    expect(otlp.ok && otlp.config.tracing).toMatchObject({ exporters: ["otlp"], otlp: { timeoutMs: 500 } });
    const db = readEnvConfig({ DATABASE_URL: "postgres://x", AGNO_TRACING: "db" });
    expect(db.ok && db.config.tracing).toEqual({ exporters: ["db"] });
  });

  it("names every bad tracing variable in one error, never quoting the headers", () => {
    const read = readEnvConfig({
      AGNO_TRACING: "yes",
      AGNO_TRACE_SAMPLE_RATIO: "2",
      OTEL_EXPORTER_OTLP_HEADERS: "secret-token",
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector",
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.problems.map((p) => p.variable)).toEqual([
      "AGNO_TRACING",
      "AGNO_TRACE_SAMPLE_RATIO",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_HEADERS",
    ]);
    expect(read.error.message).not.toContain("secret-token");
    const missing = readEnvConfig({ AGNO_TRACING: "both" });
    expect(!missing.ok && missing.error.problems.map((p) => p.variable).sort()).toEqual([
      "DATABASE_URL",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
    ]);
  });
});
