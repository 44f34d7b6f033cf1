import { expect } from 'vitest';
import type { ApiResponse, TestApp } from './api.js';
import { readBack } from './kafka.js';

export function expectError(response: ApiResponse, status: number, code: string, mentions?: string): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.error.code, JSON.stringify(response.body)).toBe(code);
  expect(typeof response.body.error.message).toBe('string');
  if (mentions) expect(JSON.stringify(response.body.error)).toContain(mentions);
}

export function expectOk<T = any>(response: ApiResponse<T>): T {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Creates a user with any extra CometChat fields and returns its `data`. */
export async function makeUser(app: TestApp, uid: string, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await app.call('POST', '/v3/users', { body: { uid, name: uid, ...extra } });
  return expectOk(response).data;
}

/** The first event of `type` about `uid` in `appId` on the users topic. */
export async function userEvent(appId: string, type: string, match: (data: any) => boolean = () => true) {
  const { value } = await readBack('chat.users.events', (event) => event['appId'] === appId && event['type'] === type && match(event['data']));
  return value as { type: string; appId: string; data: any; streamId: string; version: number };
}

export function uidsOf(response: ApiResponse): string[] {
  return (response.body.data as { uid: string }[]).map((user) => user.uid);
}
