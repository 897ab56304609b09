export { CalculatorTools, type CalculatorToolsOptions } from "./calculator-tools.js";
