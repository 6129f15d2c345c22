/**
 * Prompts unique to one test: the simulator keys per-prompt directives (`[sim:fail=…x1]`, `[sim:submit=429x2]`)
 * and tests find "their" upstream requests by prompt, so tests sharing a stack must never reuse one.
 */
export const unique = (text: string): string => `${text} #${Math.random().toString(36).slice(2, 10)}`;
