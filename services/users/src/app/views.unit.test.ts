import { describe, expect, it } from 'vitest';
import { renderToken } from './views.js';

const doc = { appId: 'app1', uid: 'ann', tokenId: 't1', tokenHint: 'abcd', createdAt: 10, updatedAt: 12, revoked: false };

describe('a rendered auth token', () => {
  it('shows appInfo as the JSON text CometChat types as a string', () => {
    const rendered = renderToken({ ...doc, appInfo: '{"version":"1.2"}' }, 'ann_10secret');
    expect(rendered['appInfo']).toBe('{"version":"1.2"}');
    expect(JSON.parse(rendered['appInfo'] as string)).toEqual({ version: '1.2' });
    expect(rendered).toMatchObject({ uid: 'ann', authToken: 'ann_10secret', tokenId: 't1', createdAt: 10, updatedAt: 12 });
    expect(renderToken(doc)).not.toHaveProperty('appInfo');
  });
});
