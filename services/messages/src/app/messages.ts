import { epochSeconds, userConversationId } from '@chat/contracts';
import type { Actor, MessageSent, UserEntity } from '@chat/contracts';
import { handleCommand } from '@chat/eventsourcing';
import { readWithPatience } from '@chat/mongo';
import type { CommitStore, EventPublisher } from '@chat/eventsourcing';
import type { Logger } from 'pino';
import type { MessagesReadModels } from '../adapters/readModels.js';
import { conversationLogDecider, conversationLogStream } from '../domain/conversationLog.js';
import type { KnownUserDoc } from '../projections/users.js';

export interface MessagesDeps {
  store: CommitStore;
  publisher: EventPublisher;
  readModels: MessagesReadModels;
  logger: Logger;
  clock?: () => Date;
}

export interface RequestContext {
  actor: Actor;
  requestId: string;
}

export interface TextMessageInput {
  sender: string;
  receiver: string;
  receiverType: 'user';
  category: 'message';
  type: 'text';
  text: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  muid?: string;
}

function entityOf(user: KnownUserDoc, conversationId?: string): UserEntity {
  return {
    uid: user.uid,
    name: user.name,
    ...(user.avatar !== undefined ? { avatar: user.avatar } : {}),
    ...(user.link !== undefined ? { link: user.link } : {}),
    status: 'offline',
    role: user.role,
    createdAt: user.createdAt,
    ...(conversationId !== undefined ? { conversationId } : {}),
  };
}

export class MessagesApp {
  private readonly clock: () => Date;

  constructor(private readonly deps: MessagesDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  async sendTextMessage(context: RequestContext, input: TextMessageInput): Promise<MessageSent> {
    const { appId } = context.actor;
    const [sender, receiver] = await Promise.all([
      readWithPatience(() => this.deps.readModels.findUser(appId, input.sender)),
      readWithPatience(() => this.deps.readModels.findUser(appId, input.receiver)),
    ]);
    const conversationId = userConversationId(input.sender, input.receiver);
    const now = this.clock();
    const sentAt = epochSeconds(now);
    // Allocated only once the parties are known, so refused sends do not burn ids.
    const id = sender && receiver && !sender.deactivated && !receiver.deactivated
      ? await this.deps.readModels.nextMessageId(appId)
      : '0';
    const message: MessageSent = {
      id,
      conversationId,
      sender: input.sender,
      receiver: input.receiver,
      receiverType: input.receiverType,
      category: input.category,
      type: input.type,
      data: {
        text: input.text,
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        ...(sender && receiver
          ? {
              entities: {
                sender: { entity: entityOf(sender), entityType: 'user' },
                receiver: { entity: entityOf(receiver, conversationId), entityType: 'user' },
              },
            }
          : {}),
      },
      ...(input.tags !== undefined ? { tags: input.tags } : {}),
      ...(input.muid !== undefined ? { muid: input.muid } : {}),
      sentAt,
    };
    await handleCommand(
      this.deps.store,
      conversationLogDecider,
      conversationLogStream(appId, conversationId),
      {
        type: 'SendMessage',
        message,
        senderActive: sender !== null && !sender.deactivated,
        receiverActive: receiver !== null && !receiver.deactivated,
      },
      { appId, actor: context.actor, correlationId: context.requestId, now },
      {
        publisher: this.deps.publisher,
        onPublishError: (err) => this.deps.logger.warn({ err }, 'publish deferred to relay'),
      },
    );
    return message;
  }
}
