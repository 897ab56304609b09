export { AGUI, type AGUIOptions } from "./agui.js";
