/**
 * Which model serves a task, followed by the generation workflow: the task's own model, or — for a task started
 * with a route (core/task.ts TaskRoute) — the member whose platform made its job, as the submit answered
 * (SubmitResult.servedBy). Every poll, cancel and settlement goes to that member's platform with that member's
 * request, and the task is billed what that member costs. A task whose submit never answered is still on its first
 * member (what a worker without routes would have sent it to), and is not served by anyone.
 *
 * Pure and deterministic: it only records what the workflow already has.
 */
import type { GenerationInput, GenerationRequest, ServedBy } from '../core/task';

export class Serving {
  platform: string;
  request: GenerationRequest;
  /** A routed task's member that made its job; undefined: a task that named its model, or no job yet. */
  servedBy: ServedBy | undefined;

  constructor(
    private readonly input: GenerationInput,
    resumed?: ServedBy,
  ) {
    this.platform = input.platform;
    this.request = input.request;
    this.serve(resumed);
  }

  /** The submit's answer: the member that made the job (ignored for a task without a route, or an unknown member). */
  serve(servedBy: ServedBy | undefined): void {
    const member = servedBy && this.input.route?.members.find((m) => m.platform === servedBy.platform && m.model === servedBy.model);
    if (!member) return;
    this.platform = member.platform;
    this.request = member.request;
    this.servedBy = { platform: member.platform, model: member.model };
  }
}
