import { describe, expect, it } from 'vitest';
import { byScalarFields } from './scalarFields.js';

describe('byScalarFields', () => {
  it('names the fields in the comment the FerretDB runner reads', () => {
    expect(byScalarFields('webhookId', 'appId')).toEqual({ $comment: 'scalars:webhookId,appId' });
  });

  it('refuses a name the runner would not read (a path, an operator, nothing)', () => {
    expect(() => byScalarFields('group.guid')).toThrow(/group\.guid/);
    expect(() => byScalarFields('$or')).toThrow();
    expect(() => byScalarFields()).toThrow();
  });
});
