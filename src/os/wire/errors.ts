import { z } from "zod";
import { agnoObject } from "./agno-object.js";

/**
 * Every error answer, as agno's AgentOS writes it (`_error_body` in `os/app.py`): `detail`, and
 * for a typed error its `error_id` and `error_type`. agno's declared error models
 * (`BadRequestResponse` and its siblings in `os/schema.py`) name an `error_code` its handlers
 * never send; the wire is what clients parse, so the wire is the contract.
 *
 * agno-edge sends `error_id` and `error_type` on every error, also where agno sends `detail`
 * alone (its 401s, unknown routes). One answer differs in shape: a request that fails validation
 * (422) is agno's `{detail: [<pydantic error>, …]}` (FastAPI's `RequestValidationError`, which
 * agno's handler passes through), and ours is this body, `detail` a sentence naming the field
 * (see BEYOND_AGNO's notes).
 */
export const agnoErrorSchema = agnoObject(
  { model: "ErrorResponse", file: "os/app.py" },
  {
    detail: z.string().describe("What went wrong, for a person"),
    error_id: z.string().optional().describe("A stable machine id for the kind of error"),
    error_type: z.string().nullable().optional().describe("The error's class of failure"),
  },
);
