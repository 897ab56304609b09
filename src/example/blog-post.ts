import type { Model } from "../models/model.js";
import { HumanReview } from "../workflow/human-review.js";
import { Step } from "../workflow/step.js";
import { Workflow } from "../workflow/workflow.js";
import { exampleResearcher, exampleWriter } from "./writing-desk.js";

/**
 * The example workflow `npm run dev` serves: research a topic, then (once a person confirms the
 * research is worth writing up) write the post. A rejection skips the writing; a review left
 * unanswered for a week cancels the run (the cron tick sees to it).
 */
export function exampleBlogPost(model: Model, opts: { heartbeatSeconds?: number } = {}): Workflow {
  return new Workflow({
    id: "blog-post",
    name: "Blog post",
    description: "Research a topic, then write a post from it once a person approves.",
    steps: [
      new Step({ name: "research", executor: exampleResearcher(model), description: "Gather the key facts" }),
      new Step({
        name: "write",
        executor: exampleWriter(model),
        description: "Write the post from the research",
        humanReview: new HumanReview({
          requiresConfirmation: true,
          confirmationMessage: "Write the post from this research?",
          timeout: 7 * 24 * 3600,
          onTimeout: "cancel",
        }),
      }),
    ],
    heartbeatSeconds: opts.heartbeatSeconds,
  });
}
