import { randomUUID } from 'node:crypto';
import { ApiError } from '@chat/contracts';
import type { Agent, KnownEvent, MessageSent } from '@chat/contracts';
import type { Logger } from 'pino';
import type { ModerationReadModels } from '../../adapters/moderation/moderationReadModels.js';
import type { MessagesReadModels } from '../../adapters/readModels.js';
import { AgentFailure } from '../../adapters/agents/agUiClient.js';
import type { AgentCall } from '../../adapters/agents/agUiClient.js';
import type { AgentCredentials } from '../../app/agents/agentCredentials.js';
import type { MessageSending, SendInput } from '../../app/messageSending.js';
import type { RunAgentInput } from '../../domain/agents/agUiStream.js';
import type { ModerationSettings } from '../../domain/moderation/moderationSettings.js';

export interface AgentRepliesDeps {
  /** Posts the agent's answer as a send of the agent's user. */
  messages: Pick<MessageSending, 'send'>;
  readModels: MessagesReadModels;
  moderation: ModerationReadModels;
  /** Opens the agent's sealed header values, only for the call. */
  credentials: AgentCredentials;
  /** Runs one agent (`runAgUiAgent`); the whole streamed answer within `timeoutMs`. */
  callAgent: (call: AgentCall) => Promise<string>;
  timeoutMs: number;
  logger: Logger;
}

/**
 * Which active agents a message is for: its receiver, or those it mentions in a group. Agents never
 * answer agents, nor messages sent before they became agents (a new consumer group reads the topic
 * from its start).
 */
export function agentsAddressed(message: MessageSent, settings: ModerationSettings): Agent[] {
  if (message.imported || message.category !== 'message' || typeof message.data['text'] !== 'string') return [];
  if (settings.agents.some((agent) => agent.uid === message.sender)) return [];
  return settings.agents.filter(
    (agent) =>
      agent.isActive &&
      message.sentAt >= agent.createdAt &&
      (message.receiverType === 'user' ? message.receiver === agent.uid : (message.mentionedUids ?? []).includes(agent.uid)),
  );
}

/** The reply's client id: a redelivered message finds its reply already sent, and the agent is not asked twice. */
function replyMuid(message: MessageSent, agent: Agent): string {
  return `agent-reply-${agent.uid}-${message.id}`;
}

/**
 * Forwards messages addressed to a BYO agent over AG-UI and posts the streamed answer back as the
 * agent's own message, through the same send command as any other message (ADR 0026). Runs in the
 * own-events group (ADR 0084), not the projection's, so a slow agent never holds up what the service
 * learns from the other services; it delays only other replies and the own topic's healing.
 */
export class AgentReplies {
  constructor(private readonly deps: AgentRepliesDeps) {}

  async handle(events: readonly KnownEvent[]): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const event of events) {
      if (event.type !== 'MessageSent') continue;
      const { settings } = await this.deps.moderation.moderationOf(event.appId);
      if (settings.agents.length === 0) continue;
      for (const agent of agentsAddressed(event.data, settings)) runs.push(this.reply(event, agent, settings));
    }
    // A failed agent is answered with an action message; anything else (the store away) retries the batch.
    await Promise.all(runs);
  }

  private async reply(event: Extract<KnownEvent, { type: 'MessageSent' }>, agent: Agent, settings: ModerationSettings): Promise<void> {
    const message = event.data;
    const { appId } = event;
    const muid = replyMuid(message, agent);
    if (await this.deps.readModels.findBySenderMuid(appId, agent.uid, muid)) return;
    const toGroup = message.receiverType === 'group';
    const base: Omit<SendInput, 'category' | 'type' | 'data'> = {
      sender: agent.uid,
      receiver: toGroup ? message.receiver : message.sender,
      receiverType: message.receiverType,
      muid,
      mentionedUids: [],
      ...(message.parentId !== undefined ? { parentId: message.parentId } : {}),
    };
    let input: SendInput;
    try {
      const text = await this.deps.callAgent({
        url: agent.integrationMeta.url,
        headers: this.openHeaders(agent),
        input: this.runInput(appId, message, agent, settings),
        timeoutMs: this.deps.timeoutMs,
      });
      input = { ...base, category: 'message', type: 'text', data: { text, metadata: { agent: { uid: agent.uid, inReplyTo: message.id } } } };
    } catch (error) {
      if (!(error instanceof AgentFailure)) throw error;
      this.deps.logger.warn({ appId, agent: agent.uid, messageId: message.id, reason: error.message }, 'agent gave no reply');
      input = {
        ...base,
        category: 'action',
        type: 'agent',
        data: { action: 'failed', text: `${agent.name} could not answer: ${error.message}.`, metadata: { agent: { uid: agent.uid, inReplyTo: message.id } } },
      };
    }
    const context = {
      actor: { appId, keyId: event.actor.keyId, scope: 'fullAccess' as const, uid: agent.uid },
      requestId: event.correlationId,
      causationId: event.id,
    };
    try {
      await this.deps.messages.send(context, input);
    } catch (error) {
      // A refusal (the asker left the group, a rule blocked the reply) is final: nothing to retry.
      if (!(error instanceof ApiError)) throw error;
      this.deps.logger.warn({ appId, agent: agent.uid, messageId: message.id, code: error.code }, 'agent reply refused');
    }
  }

  /** A value no key of this process opens fails this run like an unreachable agent: retrying cannot help. */
  private openHeaders(agent: Agent): Record<string, string> {
    try {
      return this.deps.credentials.open(agent.integrationMeta.headers);
    } catch (error) {
      throw new AgentFailure(`its headers could not be unsealed (${(error as Error).message}); save the agent's headers again`);
    }
  }

  private runInput(appId: string, message: MessageSent, agent: Agent, settings: ModerationSettings): RunAgentInput {
    const tools = settings.tools.filter((tool) => agent.tools.includes(tool.name));
    return {
      threadId: message.conversationId,
      runId: randomUUID(),
      state: {},
      messages: [{ id: message.id, role: 'user', content: String(message.data['text']) }],
      tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
      context: [],
      forwardedProps: { appId, sender: message.sender, receiver: message.receiver, receiverType: message.receiverType },
    };
  }
}
