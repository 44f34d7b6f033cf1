import { z } from 'zod';

/** A zod schema as JSON Schema embedded in a published document (AsyncAPI): the output side, no draft marker. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  // The draft marker belongs to a standalone JSON Schema file, not to a schema embedded in AsyncAPI.
  const generated = z.toJSONSchema(schema, { io: 'output' }) as Record<string, unknown>;
  delete generated['$schema'];
  return generated;
}
