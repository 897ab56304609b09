/**
 * Where each fake platform (fake-slack, fake-telegram, fake-whatsapp) lists the calls it has
 * received, as JSON: tests in workerd cannot read the fake's memory, so they ask it over HTTP.
 */
export const RECORDED_CALLS_PATH = "/__calls";

/** The calls the fake at `origin` has recorded (its own call records, in order). */
export async function recordedCalls<T>(origin: string): Promise<T[]> {
  const res = await fetch(`${new URL(origin).origin}${RECORDED_CALLS_PATH}`);
  if (!res.ok) throw new Error(`the fake at ${origin} answered ${res.status} for its calls`);
  return (await res.json()) as T[];
}
