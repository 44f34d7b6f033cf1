// The demo chat page's script (ADR 0080): a person signs in as a user of an app with an auth token and
// chats through @chat/client, REST for what exists and the realtime channel for what happens next.
import { ChatApiError, ChatClient } from '@chat/client';
import type { ChatMessage, Conversation, ConversationRef, RealtimeConnection } from '@chat/client';

type Tick = 'sent' | 'delivered' | 'read';

interface Entry {
  ref: ConversationRef;
  item: HTMLLIElement;
  unread: number;
}

interface Session {
  client: ChatClient;
  live: RealtimeConnection;
  uid: string;
}

/** A typing indicator with no `typing_ended` (a peer that vanished) clears itself after this long. */
const TYPING_SHOWN_MS = 8_000;

const byId = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};
const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text = ''): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
};

const conversations = new Map<string, Entry>();
const presence = new Map<string, string>();
let session: Session | undefined;
let open: ConversationRef | undefined;
let typingTimer: ReturnType<typeof setTimeout> | undefined;

const keyOf = (ref: ConversationRef) => `${ref.receiverType}:${ref.receiver}`;
const same = (a: ConversationRef | undefined, b: ConversationRef) => a !== undefined && keyOf(a) === keyOf(b);
/** The conversation a message belongs to, seen from the signed-in user. */
const refOf = (message: ChatMessage, uid: string): ConversationRef =>
  message.receiverType === 'group'
    ? { receiverType: 'group', receiver: message.receiver }
    : { receiverType: 'user', receiver: message.sender === uid ? message.receiver : message.sender };
const numeric = (id: string) => Number(id);

function status(text: string): void {
  byId('status').textContent = text;
}

function report(error: unknown): void {
  status(error instanceof ChatApiError ? `${error.code}: ${error.message}` : String(error instanceof Error ? error.message : error));
}

function dot(uid: string): HTMLSpanElement {
  const span = element('span', `dot ${presence.get(uid) ?? 'offline'}`);
  span.dataset['uid'] = uid;
  span.title = presence.get(uid) ?? 'offline';
  return span;
}

function showPresence(uid: string, state: string): void {
  presence.set(uid, state);
  for (const span of document.querySelectorAll<HTMLSpanElement>('.dot')) {
    if (span.dataset['uid'] !== uid) continue;
    span.className = `dot ${state}`;
    span.title = state;
  }
}

/** A user's status as REST has it, `available` in CometChat's word (the realtime channel tells only of changes). */
async function loadPresence(uid: string): Promise<void> {
  if (!session || presence.has(uid)) return;
  const user = await session.client.request<{ status?: string }>('GET', `/users/${encodeURIComponent(uid)}`);
  if (!presence.has(uid)) showPresence(uid, user.status === 'available' || user.status === 'online' ? 'online' : 'offline');
}

function entryFor(ref: ConversationRef, title = ref.receiver): Entry {
  const existing = conversations.get(keyOf(ref));
  if (existing) return existing;
  const item = element('li', 'conversation');
  item.dataset['key'] = keyOf(ref);
  if (ref.receiverType === 'user') item.append(dot(ref.receiver));
  item.append(element('span', 'name', ref.receiverType === 'group' ? `# ${title}` : title), element('span', 'unread'));
  item.onclick = () => void openConversation(ref).catch(report);
  const entry: Entry = { ref, item, unread: 0 };
  conversations.set(keyOf(ref), entry);
  byId('conversations').prepend(item);
  if (ref.receiverType === 'user') loadPresence(ref.receiver).catch(report);
  return entry;
}

function setUnread(entry: Entry, unread: number): void {
  entry.unread = unread;
  const badge = entry.item.querySelector<HTMLSpanElement>('.unread')!;
  badge.textContent = unread > 0 ? String(unread) : '';
  badge.dataset['count'] = String(unread);
}

function tickOf(message: ChatMessage): Tick {
  return message['readAt'] !== undefined ? 'read' : message['deliveredAt'] !== undefined ? 'delivered' : 'sent';
}

function setTick(item: HTMLElement, tick: Tick): void {
  const mark = item.querySelector<HTMLSpanElement>('.tick');
  if (!mark || mark.dataset['state'] === 'read' || (mark.dataset['state'] === 'delivered' && tick === 'sent')) return;
  mark.dataset['state'] = tick;
  mark.textContent = tick === 'sent' ? '✓' : '✓✓';
  mark.title = tick;
}

/** Adds the message to the open conversation, or updates it when it is already shown (REST and frame). */
function showMessage(message: ChatMessage, uid: string): void {
  const list = byId('messages');
  if (list.querySelector(`li[data-id="${CSS.escape(message.id)}"]`)) return;
  const mine = message.sender === uid;
  const item = element('li', `message ${mine ? 'mine' : 'theirs'}`);
  item.dataset['id'] = message.id;
  item.dataset['conversation'] = message.conversationId;
  const text = typeof message.data['text'] === 'string' ? message.data['text'] : `(${message.category} ${message.type})`;
  if (message.receiverType === 'group' && !mine) item.append(element('span', 'sender', message.sender));
  item.append(element('span', 'text', text));
  if (mine && message.receiverType === 'user') {
    item.append(element('span', 'tick'));
    setTick(item, tickOf(message));
  }
  // Ordered by id: a frame replayed on resume can arrive after a newer REST page.
  const after = [...list.querySelectorAll<HTMLLIElement>('li.message')].find((other) => numeric(other.dataset['id']!) > numeric(message.id));
  list.insertBefore(item, after ?? null);
  list.scrollTop = list.scrollHeight;
}

/** A receipt moves every tick of the user's own messages up to `messageId` in that conversation. */
function receipt(conversationId: string, messageId: string, uid: string, tick: Tick): void {
  if (!session || uid === session.uid) return;
  for (const item of document.querySelectorAll<HTMLLIElement>('#messages li.message.mine')) {
    if (item.dataset['conversation'] === conversationId && numeric(item.dataset['id']!) <= numeric(messageId)) setTick(item, tick);
  }
}

function showTyping(text: string): void {
  clearTimeout(typingTimer);
  byId('typing').textContent = text;
  if (text) typingTimer = setTimeout(() => (byId('typing').textContent = ''), TYPING_SHOWN_MS);
}

async function openConversation(ref: ConversationRef): Promise<void> {
  if (!session) return;
  const { client } = session;
  open = ref;
  const entry = entryFor(ref);
  for (const item of conversations.values()) item.item.classList.toggle('open', item === entry);
  byId('title').replaceChildren(...(ref.receiverType === 'user' ? [dot(ref.receiver)] : []), element('span', '', ref.receiver));
  byId('messages').replaceChildren();
  showTyping('');
  byId<HTMLFormElement>('send').hidden = false;
  const page = await client.listMessages(ref, { limit: 50 });
  if (!same(open, ref)) return;
  for (const message of page.data) showMessage(message, session.uid);
  setUnread(entry, 0);
  const last = page.data.at(-1);
  if (last) await client.markRead(ref, last.id);
  byId<HTMLInputElement>('text').focus();
}

async function loadConversations(client: ChatClient): Promise<void> {
  const page = await client.listConversations({ perPage: 50 });
  // The newest first: each is prepended, so the list is walked from the oldest.
  for (const conversation of [...page.data].reverse()) {
    const ref = peerOf(conversation);
    const name = conversation.conversationWith['name'];
    setUnread(entryFor(ref, typeof name === 'string' && name ? name : ref.receiver), Number(conversation.unreadMessageCount));
  }
}

function peerOf(conversation: Conversation): ConversationRef {
  const peer = conversation.conversationWith;
  return conversation.conversationType === 'group' ? { receiverType: 'group', receiver: String(peer['guid']) } : { receiverType: 'user', receiver: String(peer['uid']) };
}

/** A message frame: shown in the open conversation (and read), else counted unread; received either way. */
function onMessage(message: ChatMessage): void {
  if (!session) return;
  const { client, uid } = session;
  const ref = refOf(message, uid);
  const entry = entryFor(ref);
  byId('conversations').prepend(entry.item);
  const theirs = message.sender !== uid;
  if (same(open, ref)) {
    showMessage(message, uid);
    if (theirs) {
      showTyping('');
      client.markRead(ref, message.id).catch(report);
    }
  } else if (theirs) {
    setUnread(entry, entry.unread + 1);
    client.markDelivered(ref, message.id).catch(report);
  }
}

function listen(live: RealtimeConnection, uid: string): void {
  live.on('open', ({ transport }) => status(`signed in as ${uid} · live over ${transport}`));
  live.on('disconnected', () => status(`signed in as ${uid} · reconnecting…`));
  live.on('unauthorized', () => status('the auth token was refused or revoked: sign in again'));
  live.on('message', onMessage);
  live.on('read_receipt', ({ conversationId, messageId, uid: reader }) => receipt(conversationId, messageId, reader, 'read'));
  live.on('delivery_receipt', ({ conversationId, messageId, uid: receiver }) => receipt(conversationId, messageId, receiver, 'delivered'));
  live.on('presence', ({ uid: who, status: state }) => showPresence(who, state));
  const typingHere = (sender: string, receiver: string, receiverType: 'user' | 'group') =>
    open !== undefined && sender !== uid && (receiverType === 'group' ? same(open, { receiverType, receiver }) : same(open, { receiverType, receiver: sender }));
  live.on('typing_started', ({ sender, receiver, receiverType }) => {
    if (typingHere(sender, receiver, receiverType)) showTyping(`${sender} is typing…`);
  });
  live.on('typing_ended', ({ sender, receiver, receiverType }) => {
    if (typingHere(sender, receiver, receiverType)) showTyping('');
  });
  // Missed more than the server keeps: what is shown is re-read.
  live.on('resync_required', () => {
    if (!session) return;
    loadConversations(session.client)
      .then(() => (open ? openConversation(open) : undefined))
      .catch(report);
  });
}

async function signIn(appId: string, uid: string, authToken: string): Promise<void> {
  session?.client.close();
  const client = new ChatClient({ baseUrl: location.origin, appId, authToken });
  status('signing in…');
  // The first call proves the token before the socket is opened.
  await loadConversations(client);
  const live = client.connect();
  session = { client, live, uid };
  listen(live, uid);
  sessionStorage.setItem('demo.appId', appId);
  sessionStorage.setItem('demo.uid', uid);
  byId('me').textContent = uid;
  byId('login').hidden = true;
  byId('chat').hidden = false;
  status(`signed in as ${uid}`);
}

byId<HTMLInputElement>('app-id').value = sessionStorage.getItem('demo.appId') ?? '';
byId<HTMLInputElement>('uid').value = sessionStorage.getItem('demo.uid') ?? '';
byId<HTMLFormElement>('login').onsubmit = (event) => {
  event.preventDefault();
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  signIn(value('app-id'), value('uid'), value('auth-token')).catch(report);
};
byId<HTMLFormElement>('new-chat').onsubmit = (event) => {
  event.preventDefault();
  const peer = byId<HTMLInputElement>('peer');
  const receiverType = byId<HTMLSelectElement>('peer-type').value === 'group' ? 'group' : 'user';
  if (peer.value.trim()) openConversation({ receiverType, receiver: peer.value.trim() }).catch(report);
  peer.value = '';
};
byId<HTMLInputElement>('text').oninput = () => {
  if (session && open) session.live.typing(open);
};
byId<HTMLFormElement>('send').onsubmit = (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>('text');
  if (!session || !open || !input.value) return;
  const { client, uid } = session;
  const text = input.value;
  input.value = '';
  client.sendMessage({ ...open, data: { text } }).then((message) => {
    if (same(open, refOf(message, uid))) showMessage(message, uid);
  }, report);
};
