import { parse } from "@marcbachmann/cel-js";
import { useCelParser } from "./cel.js";

/**
 * Lets a Condition's evaluator, a Loop's end condition and a Router's selector be CEL strings, as
 * agno's are: call it once before defining them. A separate call so a Worker that uses no CEL does
 * not carry the engine in its bundle.
 */
export function enableCel(): void {
  useCelParser((expression) => {
    const program = parse(expression);
    return (context) => program(context) as unknown;
  });
}
