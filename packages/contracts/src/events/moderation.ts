import { z } from 'zod';
import { messageSentV1 } from './messages.js';

/**
 * Moderation and BYO-agent settings of an app: one stream per app (`moderation:<appId>`) in the
 * messages service, which enforces them on send. Every event carries the whole entity as saved, so a
 * projection replaces what it holds instead of merging a diff.
 */
export const moderationReasonV1 = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});

export const ruleActions = ['blockMessage', 'dropMessage', 'maskMessage', 'flagMessage'] as const;

export const ruleConditionV1 = z.object({
  id: z.number().int(),
  entity: z.string(),
  operand: z.enum(['text', 'image', 'video', 'custom']),
  operator: z.enum(['contains', 'equals']),
  category: z.enum(['word', 'pattern']),
  /** `value` names keyword lists (true) or holds the terms themselves (false). */
  isKeywordsReferencePresent: z.boolean(),
  isMediaPresent: z.boolean(),
  value: z.array(z.string()),
});

export const moderationRuleV1 = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  conditions: z.array(ruleConditionV1),
  action: z.array(z.enum(ruleActions)),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  /** `<appId>_<ruleId>_<n>`: every save is a new revision. */
  revisionId: z.string(),
  revision: z.number().int().min(1),
});

export const keywordListV1 = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.enum(['word', 'pattern']),
  isCSV: z.boolean(),
  searchTerms: z.array(z.string()),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  revisionId: z.string(),
});

/**
 * An AG-UI agent: where it runs and the headers its requests carry. Header values are credentials,
 * sealed with the messages secrets key (`SecretBox`, `v2.<key id>.…`; ADR 0039); values saved before
 * sealing existed are plaintext until the agent is saved again.
 */
export const agentV1 = z.object({
  uid: z.string(),
  name: z.string(),
  icon: z.string().optional(),
  isActive: z.boolean(),
  integrateWith: z.string(),
  integrationType: z.literal('agent'),
  integrationMeta: z.object({ url: z.string(), headers: z.record(z.string(), z.string()) }),
  tools: z.array(z.string()),
  actions: z.array(z.string()),
  metaData: z.record(z.string(), z.unknown()),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});

export const agentToolV1 = z.object({
  name: z.string(),
  displayName: z.string(),
  executionText: z.string(),
  description: z.string(),
  doNotExecute: z.boolean(),
  parameters: z.record(z.string(), z.unknown()),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});

const removed = (key: string) => z.object({ [key]: z.string(), deletedAt: z.number().int() });

export const moderationSettingsEventSchemas = {
  ModerationReasonSaved: { 1: z.object({ reason: moderationReasonV1 }) },
  ModerationReasonDeleted: { 1: removed('id') },
  ModerationRuleSaved: { 1: z.object({ rule: moderationRuleV1 }) },
  ModerationRuleDeleted: { 1: removed('id') },
  KeywordListSaved: { 1: z.object({ list: keywordListV1 }) },
  KeywordListDeleted: { 1: removed('id') },
  AgentSaved: { 1: z.object({ agent: agentV1 }) },
  AgentDeleted: { 1: removed('uid') },
  AgentToolSaved: { 1: z.object({ tool: agentToolV1 }) },
  AgentToolDeleted: { 1: removed('name') },
} as const;

export const moderationSettingsEventTypes = Object.keys(moderationSettingsEventSchemas) as Array<keyof typeof moderationSettingsEventSchemas>;

/** Which rule (revision and condition) stopped a message. */
export const ruleMatchV1 = z.object({
  ruleId: z.string(),
  ruleName: z.string(),
  revisionId: z.string(),
  condition: ruleConditionV1,
  action: z.array(z.enum(ruleActions)),
  /** The terms of the message that matched. */
  matched: z.array(z.string()),
});

/**
 * A message a rule blocked: on its conversation's stream, with the id it was given, but never sent
 * (no consumer that shows, notifies or calls webhooks for messages sees a `MessageSent`).
 */
export const messageBlockedV1 = z.object({ message: messageSentV1, match: ruleMatchV1, blockedAt: z.number().int() });

/** A message put in the review queue, by a user (`reasonId`) or by a rule (`match`). */
export const messageFlaggedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  flaggedBy: z.string(),
  reasonId: z.string().optional(),
  remark: z.string().optional(),
  match: ruleMatchV1.optional(),
  flaggedAt: z.number().int(),
});

/**
 * A moderator's decision. Flagged: `approved` keeps the message, `disapproved` deletes it (a
 * `MessageDeleted` follows in the same commit). Blocked: `approved` delivers it (as a new message,
 * `deliveredAs`), `rejected` keeps it blocked.
 */
export const messageReviewedV1 = z.object({
  id: z.string(),
  conversationId: z.string(),
  queue: z.enum(['flagged', 'blocked']),
  status: z.enum(['approved', 'disapproved', 'rejected']),
  reviewedBy: z.string(),
  deliveredAs: z.string().optional(),
  reviewedAt: z.number().int(),
});

export const messageModerationEventSchemas = {
  MessageBlocked: { 1: messageBlockedV1 },
  MessageFlagged: { 1: messageFlaggedV1 },
  MessageReviewed: { 1: messageReviewedV1 },
} as const;

export const messageModerationEventTypes = ['MessageBlocked', 'MessageFlagged', 'MessageReviewed'] as const;

export type ModerationReason = z.infer<typeof moderationReasonV1>;
export type RuleCondition = z.infer<typeof ruleConditionV1>;
export type RuleAction = (typeof ruleActions)[number];
export type ModerationRule = z.infer<typeof moderationRuleV1>;
export type KeywordList = z.infer<typeof keywordListV1>;
export type Agent = z.infer<typeof agentV1>;
export type AgentTool = z.infer<typeof agentToolV1>;
export type RuleMatch = z.infer<typeof ruleMatchV1>;
export type MessageBlocked = z.infer<typeof messageBlockedV1>;
export type MessageFlagged = z.infer<typeof messageFlaggedV1>;
export type MessageReviewed = z.infer<typeof messageReviewedV1>;
