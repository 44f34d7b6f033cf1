import { describe, expect, it } from 'vitest';
import * as main from './index.js';
import * as testing from './testing.js';

describe('package entries', () => {
  it('keeps the test kit off the main entry, which services load at run time', () => {
    for (const name of Object.keys(testing)) expect(Object.keys(main)).not.toContain(name);
  });

  it('offers the test kit on /testing', () => {
    expect(Object.keys(testing).sort()).toEqual(['InMemoryCommitStore', 'specFor', 'testEnvelope']);
  });
});
