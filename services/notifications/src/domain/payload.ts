import type { MessageSent } from '@chat/contracts';
import type { NotificationSettings } from './settings.js';

/** `{{a.b.c}}` placeholders read from the context; a missing value renders as nothing. */
export function render(template: string, context: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
    let value: unknown = context;
    for (const key of path.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  });
}

const mediaTypes = new Set(['image', 'audio', 'video', 'file']);

/** Which template pair renders a message: text, media, poll-like custom types and the rest. */
function templateOf(message: MessageSent, settings: NotificationSettings, privacy: boolean): Record<string, string> {
  const suffix = privacy ? 'Privacy' : 'Default';
  const kind = message.category === 'custom' ? 'custom' : mediaTypes.has(message.type) ? 'media' : 'text';
  const found = settings.templates[`${kind}MessageTemplate${suffix}`];
  return typeof found === 'object' && found !== null ? (found as Record<string, string>) : {};
}

function entityName(message: MessageSent, side: 'sender' | 'receiver'): string {
  const entities = message.data['entities'] as Record<string, { entity?: { name?: unknown } }> | undefined;
  const name = entities?.[side]?.entity?.name;
  return typeof name === 'string' ? name : side === 'sender' ? message.sender : message.receiver;
}

/** Title and body of a push notification, from the app's templates. */
export function notificationText(message: MessageSent, settings: NotificationSettings, privacy: boolean): { title: string; body: string } {
  const template = templateOf(message, settings, privacy);
  const context = { message: { ...message, data: message.data } };
  const title = render((message.receiverType === 'group' ? template['titleGroup'] : template['titleOneOnOne']) ?? '', context);
  const bodyTemplate = mediaTypes.has(message.type) ? template[`body_${message.type}`] : template['body'];
  const body = render(bodyTemplate ?? '', context) || render(template['body_fallback'] ?? '', context);
  return { title, body };
}

/**
 * What a push provider receives about a message: CometChat's `notificationDetails`, with the message
 * object and metadata as the app's push payload settings ask.
 */
export function pushDetails(message: MessageSent, settings: NotificationSettings, privacy: boolean): Record<string, unknown> {
  const push = settings.preferences.push;
  const { title, body } = notificationText(message, settings, privacy);
  const trimmed = push.trimTextFieldSetting && body.length > 100 ? `${body.slice(0, 100)}…` : body;
  const metadata = (message.data['metadata'] as Record<string, unknown> | undefined) ?? undefined;
  return {
    title,
    body: trimmed,
    sender: message.sender,
    senderName: entityName(message, 'sender'),
    receiver: message.receiver,
    receiverName: entityName(message, 'receiver'),
    receiverType: message.receiverType,
    conversationId: message.conversationId,
    type: 'chat',
    tag: message.id,
    sound: settings.sound.chat,
    ...(push.includeMessageObjectSetting && !privacy ? { message } : {}),
    ...(push.includeMessageMetadataSetting && metadata && !privacy ? { messageMetadata: metadata } : {}),
    ...(Object.keys(push.customJson).length > 0 ? { custom: push.customJson } : {}),
  };
}

/** The summary email and SMS providers get: the message(s) and who they are for. */
export function digestMessage(message: MessageSent, privacy: boolean): Record<string, unknown> {
  const text = typeof message.data['text'] === 'string' && !privacy ? (message.data['text']) : undefined;
  return {
    sender: { uid: message.sender, name: entityName(message, 'sender') },
    receiver: { uid: message.receiver, name: entityName(message, 'receiver'), type: message.receiverType },
    id: message.id,
    type: message.type,
    category: message.category,
    sentAt: message.sentAt,
    ...(text !== undefined ? { text } : {}),
  };
}
