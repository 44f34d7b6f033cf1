import { ApiError } from '@chat/contracts';
import type { ErrorCode } from '@chat/contracts';
import type { z } from 'zod';

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.');
}

/**
 * Parses with zod and turns the first problem into a CometChat-shaped error naming the field.
 * `codes` maps a top-level field to a more specific code than ERR_BAD_REQUEST.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  codes: Partial<Record<string, ErrorCode>> = {},
): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0];
  const field = first ? pathOf(first) : '(body)';
  const code = codes[String(first?.path[0] ?? '')] ?? 'ERR_BAD_REQUEST';
  const message = first ? `${field}: ${first.message}` : 'The request is invalid.';
  throw new ApiError(code, message, {
    fields: issues.slice(0, 10).map((issue) => ({ field: pathOf(issue), problem: issue.message })),
  });
}
