import { apiKeyScopes } from '@chat/contracts';
import { cursorParameter } from '@chat/http';
import { z } from 'zod';

export const regions = ['us', 'eu', 'in'] as const;

/** CometChat: names are up to 100 characters, an emoji counting as two (UTF-16 length). */
const name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const scope = z.enum(apiKeyScopes);

const pageQuery = {
  perPage: z.coerce.number().int().min(1).max(1000).default(100),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  cursor: cursorParameter,
};

export const createAppBody = z.object({
  name,
  region: z.enum(regions),
  /** Only REST API v3 exists here. */
  version: z.literal('3').optional(),
  /** Accepted for compatibility; this platform never seeds sample data. */
  skipSampleData: z.boolean().optional(),
});

export const listAppsQuery = z.object({ searchKey: z.string().max(100).optional(), ...pageQuery });

export const createApiKeyBody = z.object({ name, scope });

export const updateApiKeyBody = z
  .object({ name: name.optional(), scope: scope.optional() })
  .refine((body) => body.name !== undefined || body.scope !== undefined, {
    message: 'name or scope is required',
    path: ['name'],
  });

export const listApiKeysQuery = z.object({ scope: scope.optional(), searchKey: z.string().max(100).optional(), ...pageQuery });
