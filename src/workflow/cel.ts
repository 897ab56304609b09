import { ValidationError } from "../errors.js";
import { asText } from "./deepest-content.js";
import type { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";

/** A CEL expression parsed once (at definition, so a syntax error fails there), evaluated per run. */
export type CelProgram = (context: Record<string, unknown>) => unknown;

/**
 * The CEL parser once `enableCel()` (enable-cel.ts) has handed it over: kept behind that call so a
 * Worker that writes no CEL does not bundle the engine.
 */
let celParse: ((expression: string) => CelProgram) | undefined;

/** Hands the CEL parser to the blocks (enableCel's one job). */
export function useCelParser(parse: (expression: string) => CelProgram): void {
  celParse = parse;
}

/** `expression` as a program; a ValidationError naming `field` when it does not parse, or when CEL is not enabled. */
export function compileCel(expression: string, field: string): CelProgram {
  if (!celParse)
    throw new ValidationError(
      `${field}: a CEL expression needs enableCel() first (import { enableCel } from "agno-edge"), which loads the CEL engine; or pass a function`,
      field,
    );
  try {
    return celParse(expression);
  } catch (error) {
    throw new ValidationError(`${field}: not a CEL expression: ${(error as Error).message.split("\n")[0]}`, field);
  }
}

/**
 * What a Condition's evaluator and a Router's selector see (agno's cel.py): the input and the
 * previous content as text, the previous outputs' contents by name, additional_data, session_state.
 */
export function stepInputContext(input: StepInput): Record<string, unknown> {
  return {
    input: asText(input.input),
    previous_step_content: asText(input.previous_step_content),
    previous_step_outputs: Object.fromEntries(
      Object.entries(input.previous_step_outputs).map(([name, out]) => [name, asText(out.content)]),
    ),
    additional_data: input.additional_data,
    session_state: input.session_state,
  };
}

/** What a Loop's end condition sees after an iteration (agno's cel.py). */
export function loopContext(results: StepOutput[], iteration: number, maxIterations: number): Record<string, unknown> {
  return {
    current_iteration: iteration,
    max_iterations: maxIterations,
    all_success: results.every((r) => r.success),
    last_step_content: asText(results.at(-1)?.content ?? ""),
    step_outputs: Object.fromEntries(results.map((r, i) => [r.step_name ?? `step_${i + 1}`, asText(r.content)])),
  };
}
