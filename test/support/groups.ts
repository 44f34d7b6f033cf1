import { expect } from 'vitest';
import { createUser } from './api.js';
import type { ApiResponse, TestApp } from './api.js';

/** Asserts a CometChat-shaped error. */
export function expectError(response: ApiResponse, status: number, code: string, mentions?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code, JSON.stringify(response.body)).toBe(code);
  if (mentions) expect(response.body.error.message).toContain(mentions);
}

export async function createUsers(app: TestApp, ...uids: string[]): Promise<void> {
  for (const uid of uids) await createUser(app, uid, `User ${uid}`);
}

/** Creates a group and fails the test at once when that does not work. */
export async function createGroup(app: TestApp, body: Record<string, unknown>, onBehalfOf?: string): Promise<ApiResponse> {
  const response = await app.call('POST', '/v3/groups', { body, ...(onBehalfOf !== undefined ? { onBehalfOf } : {}) });
  if (response.status !== 200) throw new Error(`create group: ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

export async function memberScopes(app: TestApp, guid: string): Promise<Record<string, string>> {
  const response = await app.call('GET', `/v3/groups/${guid}/members?perPage=1000`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return Object.fromEntries((response.body.data as Array<{ uid: string; scope: string }>).map((m) => [m.uid, m.scope]));
}
