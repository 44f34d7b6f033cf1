import { eventually } from './api.js';
import type { ApiResponse, TestApp } from './api.js';

/*
 * The real calls the conversation read-model tests drive it with: groups and memberships through the
 * groups API, messages through the messages service, every one through the gateway. Each helper fails
 * the test at once when its call is refused, so a test never goes on from a state it did not reach.
 */

function succeeded(what: string, response: ApiResponse): ApiResponse {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

/** Polls a call until the check passes; fails the test with the last answer otherwise. */
export async function until(read: () => Promise<ApiResponse>, check: (response: ApiResponse) => boolean): Promise<ApiResponse> {
  const response = await eventually(read, check, 15_000);
  if (!check(response)) throw new Error(`condition never held; last answer ${response.status} ${JSON.stringify(response.body)}`);
  return response;
}

/** A public group joined by `uid` themself (`POST /groups/{guid}/members` on their own behalf). */
export async function joinGroup(app: TestApp, guid: string, uid: string): Promise<void> {
  succeeded(`${uid} joins ${guid}`, await app.call('POST', `/v3/groups/${guid}/members`, { onBehalfOf: uid, body: { participants: [uid] } }));
}

/** `uid` leaves (kicks themself), or is kicked `by` an admin or moderator. */
export async function removeMember(app: TestApp, guid: string, uid: string, by = uid): Promise<void> {
  succeeded(`${by} removes ${uid} from ${guid}`, await app.call('DELETE', `/v3/groups/${guid}/members/${uid}`, { onBehalfOf: by }));
}

export async function banMember(app: TestApp, guid: string, uid: string, by: string): Promise<void> {
  succeeded(`${by} bans ${uid} from ${guid}`, await app.call('POST', `/v3/groups/${guid}/bannedusers/${uid}`, { onBehalfOf: by }));
}

/** Sends a text message and returns its id; retries while the sender's membership is still on its way to the messages service. */
export async function sendText(app: TestApp, from: string, receiver: string, receiverType: 'user' | 'group', text: string): Promise<string> {
  const send = () =>
    app.call('POST', '/v3/messages', { onBehalfOf: from, body: { receiver, receiverType, category: 'message', type: 'text', data: { text } } });
  const sent = succeeded(`${from} sends "${text}" to ${receiver}`, await eventually(send, (r) => r.status === 200));
  return String(sent.body.data.id);
}

export async function editText(app: TestApp, id: string, by: string, text: string): Promise<void> {
  succeeded(`${by} edits ${id}`, await app.call('PUT', `/v3/messages/${id}`, { onBehalfOf: by, body: { data: { text } } }));
}

export async function deleteMessage(app: TestApp, id: string, by: string, permanent: boolean): Promise<void> {
  succeeded(`${by} deletes ${id}`, await app.call('DELETE', `/v3/messages/${id}`, { onBehalfOf: by, body: { permanent } }));
}

/**
 * Waits until the action message the messages service makes of a membership change (`action` on
 * `on`, newer than `newerThan`) is the last message of `as`'s group conversation, and returns its id.
 * Tests wait for it before sending more, so that message ids follow the order of the story.
 */
export async function untilAction(app: TestApp, guid: string, as: string, action: string, on: string, newerThan: string | number = 0): Promise<string> {
  const seen = await until(
    () => app.call('GET', `/v3/groups/${guid}/conversation`, { onBehalfOf: as }),
    (r) => {
      const last = r.body?.data?.lastMessage;
      return (
        last?.category === 'action' && last.data?.action === action && last.data?.entities?.on?.entity?.uid === on && Number(last.id) > Number(newerThan)
      );
    },
  );
  return String(seen.body.data.lastMessage.id);
}
