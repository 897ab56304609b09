import { z } from "zod";
import { tool, Toolkit, type Tool } from "../../tools/tool.js";

/** Factorials beyond this are refused: the answer would be thousands of digits the model cannot use. */
const MAX_FACTORIAL = 1000;

const pair = z.object({ a: z.number().describe("First number."), b: z.number().describe("Second number.") });
const single = z.object({ n: z.number().describe("The number.") });
const integer = z.object({ n: z.number().int().describe("The integer.") });
const prime = z.object({
  n: z.number().int().max(Number.MAX_SAFE_INTEGER).describe("The integer to check."),
});

/** A result as agno's CalculatorTools answers: the operation's name and its result, or an error. */
type Answer = { operation: string; result?: number | string | boolean; error?: string };

function finite(operation: string, value: number): Answer {
  return Number.isFinite(value)
    ? { operation, result: value }
    : { operation, error: "The result is not a finite number" };
}

function factorial(n: number): Answer {
  if (n < 0) return { operation: "factorial", error: "Factorial of a negative number is undefined" };
  if (n > MAX_FACTORIAL) return { operation: "factorial", error: `Factorials above ${MAX_FACTORIAL} are not computed` };
  let acc = 1n;
  for (let i = 2n; i <= BigInt(n); i++) acc *= i;
  // an exact integer past 2^53 goes out as its digits, as JSON numbers would round it
  return { operation: "factorial", result: acc <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(acc) : acc.toString() };
}

function isPrime(n: number): boolean {
  if (n <= 1) return false;
  if (n <= 3) return true;
  if (n % 2 === 0 || n % 3 === 0) return false;
  for (let i = 5; i * i <= n; i += 6) if (n % i === 0 || n % (i + 2) === 0) return false;
  return true;
}

const ALL: Record<string, () => Tool> = {
  add: () =>
    tool({
      name: "add",
      description: "Add two numbers and return the result.",
      parameters: pair,
      execute: ({ a, b }) => finite("addition", a + b),
    }),
  subtract: () =>
    tool({
      name: "subtract",
      description: "Subtract second number from first and return the result.",
      parameters: pair,
      execute: ({ a, b }) => finite("subtraction", a - b),
    }),
  multiply: () =>
    tool({
      name: "multiply",
      description: "Multiply two numbers and return the result.",
      parameters: pair,
      execute: ({ a, b }) => finite("multiplication", a * b),
    }),
  divide: () =>
    tool({
      name: "divide",
      description: "Divide first number by second and return the result.",
      parameters: pair,
      execute: ({ a, b }) =>
        b === 0 ? { operation: "division", error: "Division by zero is undefined" } : finite("division", a / b),
    }),
  exponentiate: () =>
    tool({
      name: "exponentiate",
      description: "Raise first number to the power of the second number and return the result.",
      parameters: pair,
      execute: ({ a, b }) => finite("exponentiation", Math.pow(a, b)),
    }),
  factorial: () =>
    tool({
      name: "factorial",
      description: "Calculate the factorial of a number and return the result.",
      parameters: integer,
      execute: ({ n }) => factorial(n),
    }),
  is_prime: () =>
    tool({
      name: "is_prime",
      description: "Check if a number is prime and return the result.",
      parameters: prime,
      execute: ({ n }) => ({ operation: "prime_check", result: isPrime(n) }),
    }),
  square_root: () =>
    tool({
      name: "square_root",
      description: "Calculate the square root of a number and return the result.",
      parameters: single,
      execute: ({ n }) =>
        n < 0
          ? { operation: "square_root", error: "Square root of a negative number is undefined" }
          : finite("square_root", Math.sqrt(n)),
    }),
};

export interface CalculatorToolsOptions {
  /** only these tools (agno's `include_tools`) */
  include?: string[];
  /** every tool but these (agno's `exclude_tools`) */
  exclude?: string[];
}

/**
 * agno's CalculatorTools: arithmetic the model should not do in its head. Each tool answers as
 * agno's does, `{operation, result}` or `{operation, error}`; a non-finite result is an error
 * instead of agno's `inf`, which JSON cannot carry.
 *
 * @example
 * new Agent({ model, tools: [new CalculatorTools()] });
 */
export class CalculatorTools extends Toolkit {
  constructor(opts: CalculatorToolsOptions = {}) {
    super({ id: "calculator", name: "calculator", tools: Object.values(ALL).map((make) => make()), ...opts });
  }
}
