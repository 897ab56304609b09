import { z } from "zod";
import { agnoObject } from "./agno-object.js";

/**
 * `GET /`: agno's landing answer, which its `home()` route builds as a plain dict (the route is
 * left out of agno's OpenAPI document, so the class name here is ours): the OS's name and where
 * the health, info and docs routes are.
 */
export const homeResponseSchema = agnoObject(
  { model: "HomeResponse", file: "os/routers/home.py" },
  {
    name: z.string().describe("The OS's name"),
    health: z.literal("/health"),
    info: z.literal("/info"),
    docs: z.literal("/docs").optional().describe("Where the API's page is, when it is served"),
  },
);
