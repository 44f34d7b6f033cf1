import { ApiError } from '@chat/contracts';
import { describe, expect, it } from 'vitest';
import { ListCursor, compareKeys, pageInMemory } from './cursor.js';

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.code} ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('ListCursor', () => {
  it('continues after the key it was issued for, on the next page number', () => {
    const first = new ListCursor('list-users', { searchKey: 'a' }, undefined, 1);
    const token = first.next(['k1', 3], true) as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = new ListCursor('list-users', { searchKey: 'a' }, token);
    expect([second.after, second.page, second.offset(25)]).toEqual([['k1', 3], 2, 0]);
  });

  it('issues no token on the last page', () => {
    const cursor = new ListCursor('list-roles', {}, undefined, 4);
    expect([cursor.next(['x'], false), cursor.next(undefined, true), cursor.offset(10)]).toEqual([null, null, 30]);
  });

  it('binds the token to its list and filters, whatever the filters’ key order', () => {
    const token = new ListCursor('list-groups', { a: 1, b: [2], c: undefined }, undefined).next(['g'], true) as string;
    expect(new ListCursor('list-groups', { b: [2], a: 1 }, token).after).toEqual(['g']);
    expect(refusal(() => new ListCursor('list-groups', { a: 2, b: [2] }, token))).toBe('ERR_BAD_REQUEST cursor: issued for another list or other filters');
    expect(refusal(() => new ListCursor('list-users', { a: 1, b: [2] }, token))).toBe('ERR_BAD_REQUEST cursor: issued for another list or other filters');
  });

  it('refuses what it did not issue, naming cursor', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const raw of ['***', 'bm90IGpzb24', forged({ s: 'x', k: [], p: 1 }), forged({ s: 'x', k: [{}], p: 1 }), forged({ s: 'x', k: ['a'], p: 0 }), forged([1])]) {
      expect(refusal(() => new ListCursor('list-users', {}, raw))).toBe('ERR_BAD_REQUEST cursor: not a cursor this API issued');
    }
  });
});

describe('keys in memory', () => {
  it('compares field by field in each field’s direction', () => {
    expect(compareKeys([1, -1], ['a', 5], ['a', 3])).toBeLessThan(0);
    expect(compareKeys([1, -1], ['a', 5], ['b', 9])).toBeLessThan(0);
    expect(compareKeys([1], ['a'], ['a'])).toBe(0);
  });

  it('pages after a key even when items were added before it', () => {
    const order = [1] as const;
    const first = pageInMemory(['b', 'd', 'f'], (x) => [x], order, new ListCursor('l', {}, undefined), 2);
    expect(first.items).toEqual(['b', 'd']);
    const grown = ['a', 'b', 'c', 'd', 'e', 'f'];
    const second = pageInMemory(grown, (x) => [x], order, new ListCursor('l', {}, first.next as string), 2);
    expect([second.items, second.next]).toEqual([['e', 'f'], null]);
  });
});
