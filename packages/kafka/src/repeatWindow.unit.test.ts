import { describe, expect, it } from 'vitest';
import { RepeatWindow } from './repeatWindow.js';

describe('RepeatWindow', () => {
  it('records below the high watermark of the first fetch after a join may be repeats; later ones are new', () => {
    const window = new RepeatWindow();
    window.fetched('t', 0, '10');
    expect(window.handing('t', 0, '4', '9')).toBe(true);
    window.fetched('t', 0, '30'); // a later fetch does not move the window
    expect(window.handing('t', 0, '10', '19')).toBe(false);
    expect(window.handing('t', 0, '20', '29')).toBe(false);
  });

  it('a run handed again after a failure is a possible repeat, and so is any run that reaches into one handed before', () => {
    const window = new RepeatWindow();
    window.fetched('t', 0, '0');
    expect(window.handing('t', 0, '0', '9')).toBe(false);
    expect(window.handing('t', 0, '0', '9')).toBe(true);
    expect(window.handing('t', 0, '5', '14')).toBe(true);
    expect(window.handing('t', 0, '15', '15')).toBe(false);
  });

  it('a rejoin measures every partition afresh: what was handed before may come again from another member', () => {
    const window = new RepeatWindow();
    window.fetched('t', 0, '0');
    expect(window.handing('t', 0, '0', '9')).toBe(false);
    window.joined();
    window.fetched('t', 0, '25');
    expect(window.handing('t', 0, '10', '24')).toBe(true);
    expect(window.handing('t', 0, '25', '30')).toBe(false);
  });

  it('partitions are apart, and without a known high watermark everything may be a repeat', () => {
    const window = new RepeatWindow();
    window.fetched('t', 0, '0');
    window.fetched('t', 1, undefined);
    expect(window.handing('t', 0, '0', '3')).toBe(false);
    expect(window.handing('t', 1, '0', '3')).toBe(true);
    expect(window.handing('t', 1, '4', '8')).toBe(true);
    expect(window.handing('u', 0, '0', '0')).toBe(true);
  });
});
