import { UID_PATTERN } from '@chat/contracts';
import { z } from 'zod';

const url = z.url({ protocol: /^https?$/ }).max(3000);
/** CometChat: metadata up to 5 KB. */
export const MAX_METADATA_BYTES = 5 * 1024;

export const uidSchema = z
  .string()
  .transform((uid) => uid.toLowerCase())
  .pipe(z.string().regex(UID_PATTERN, 'must be 1 to 100 characters of a-z, 0-9, "-" and "_"'));

export const createUserSchema = z.object({
  uid: uidSchema,
  name: z.string().trim().min(1, 'must not be empty').max(100),
  avatar: url.optional(),
  link: url.optional(),
  role: z
    .string()
    .transform((role) => role.toLowerCase())
    .pipe(z.string().regex(/^[a-z0-9_-]{1,100}$/, 'must be 1 to 100 characters of a-z, 0-9, "-" and "_"'))
    .default('default'),
  statusMessage: z.string().max(255).optional(),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES, 'must be at most 5 KB')
    .optional(),
  tags: z.array(z.string().trim().min(1).max(100)).max(25).default([]),
  withAuthToken: z.boolean().default(false),
});

export const createAuthTokenSchema = z.object({ force: z.boolean().optional() }).default({});

export const pagingSchema = z.object({
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
});
