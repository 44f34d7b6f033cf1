import { ApiError } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseQuery } from './query.js';

const schema = z.object({ searchKey: z.string().optional(), unread: z.enum(['true', 'false']).optional() });

describe('parseQuery', () => {
  it('treats empty values as unset', () => {
    expect(parseQuery(schema, { searchKey: '', unread: 'true', other: '' })).toEqual({ unread: 'true' });
  });

  it('refuses a parameter the list does not take, naming it', () => {
    const refusal = (() => {
      try {
        parseQuery(schema, { unred: 'true', searchKey: 'a' });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe('ERR_BAD_REQUEST');
    expect((refusal as ApiError).message).toContain('unred');
  });
});
