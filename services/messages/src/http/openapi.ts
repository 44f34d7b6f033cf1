import { DESCRIBED_NOW_SECONDS, dataOf, importAnswerShape, importRequest, listOf, outcomeShape } from '@chat/contracts';
import type { ErrorCode, RequestSchemas, ResponseSchemas } from '@chat/contracts';
import { z } from 'zod';
import {
  createAgentBody,
  createKeywordsBody,
  createReasonBody,
  createRuleBody,
  createToolBody,
  flagBody,
  reviewBlockedBody,
  reviewFlaggedBody,
  settingsPageQuery,
  updateAgentBody,
  updateKeywordsBody,
  updateReasonBody,
  updateRuleBody,
  updateToolBody,
} from './moderation/moderationSchemas.js';
import {
  agentAcknowledgement,
  agentResource,
  integrationResource,
  interactedAnswer,
  keywordListResource,
  messageMetricsAnswer,
  messageResource,
  reactionResource,
  reasonResource,
  reviewEntryResource,
  ruleResource,
  savedMessageAnswer,
  settingDeleted,
  threadRowResource,
  toolResource,
  usageMetricsAnswer,
} from './resourceSchemas.js';
import {
  allMessagesSchema,
  conversationMessagesSchema,
  deleteSchema,
  editSchema,
  envelopeSchema,
  threadPageSchema,
  userMessagesSchema,
} from './schemas.js';
import { importEnvelopeSchema } from './dataImport/importSchemas.js';
import { messageMetricsRangeSchema, usageRangeSchema } from './usageMetrics/statsSchemas.js';
import { interactedBodySchema, threadListSchema } from './personalMarks/personalRoutes.js';

/** What each operation of this service parses, for the generated OpenAPI description (npm run openapi). */
export const requestSchemas: RequestSchemas = {
  'send-message': { body: envelopeSchema },
  'send-bot-message': { body: envelopeSchema },
  'send-thread-message': { body: envelopeSchema },
  'list-all-messages': { query: allMessagesSchema },
  'user-list-group-messages': { query: conversationMessagesSchema },
  'user-list-user-messages': { query: userMessagesSchema },
  'update-message': { body: editSchema },
  'delete-message': { body: deleteSchema },
  'list-all-thread-messages': { query: threadPageSchema },
  'usage-metrics': { query: usageRangeSchema },
  'message-receipt-metrics': { query: messageMetricsRangeSchema },
  // A record is an envelope of its own (muid, sender, times) around the content of a send.
  'import-messages': { body: importRequest('messages', importEnvelopeSchema(DESCRIBED_NOW_SECONDS).and(envelopeSchema)) },
  // moderation settings and review queues
  'list-reasons': { query: settingsPageQuery },
  'create-reason': { body: createReasonBody },
  'update-reason-details': { body: updateReasonBody },
  'list-rules': { query: settingsPageQuery },
  'create-rule': { body: createRuleBody },
  'update-rule': { body: updateRuleBody },
  'list-rule-revisions': { query: settingsPageQuery },
  'list-rule-keywords': { query: settingsPageQuery },
  'create-rule-keyword': { body: createKeywordsBody },
  'update-rule-keyword': { body: updateKeywordsBody },
  'flag-a-message': { body: flagBody },
  'list-flagged-messages': { query: settingsPageQuery },
  'blockreview-flagged-message': { body: reviewFlaggedBody },
  'list-reviewed-messages': { query: settingsPageQuery },
  'list-moderation-blocked-messages': { query: settingsPageQuery },
  'review-blocked-message': { body: reviewBlockedBody },
  // BYO agents and their tools
  'create-byo-agent': { body: createAgentBody },
  'list-byo-agents': { query: settingsPageQuery },
  'update-byo-agent': { body: updateAgentBody },
  'create-tool': { body: createToolBody },
  'list-tools': { query: settingsPageQuery },
  'update-tool': { body: updateToolBody },
  'mark-message-as-interacted': { body: interactedBodySchema },
  'list-threads': { query: threadListSchema },
};

const message = dataOf(messageResource);
const messages = listOf(messageResource);
const SEND: ErrorCode[] = [
  'ERR_EMPTY_RECEIVER',
  'ERR_INVALID_RECEIVER_TYPE',
  'ERR_UID_NOT_FOUND',
  'ERR_GUID_NOT_FOUND',
  'ERR_EMPTY_MESSAGE_TEXT',
  'ERR_INVALID_MESSAGE_TEXT',
  'ERR_INVALID_MESSAGE_TYPE',
  'ERR_INVALID_MESSAGE_CATEGORY',
  'ERR_INVALID_MESSAGE_DATA',
  'ERR_EMPTY_MESSAGE_TYPE',
  'ERR_EMPTY_MESSAGE_FILE',
  'ERR_INVALID_MEDIA_MESSAGE',
  'ERR_EMPTY_CUSTOM_DATA',
  'ERR_INVALID_CUSTOM_DATA',
  'ERR_INVALID_METADATA',
  'ERR_MESSAGE_TO_SELF',
  'ERR_BLOCKED_RECEIVER',
  'ERR_BLOCKED_SENDER',
  'ERR_GROUP_NOT_JOINED',
  'ERR_BANNED_GROUPMEMBER',
  'ERR_BLOCKED_BY_EXTENSION',
  'ERR_MESSAGE_ID_NOT_FOUND',
  'ERR_INVALID_MESSAGE_ID',
];
const ONE_MESSAGE: ErrorCode[] = ['ERR_INVALID_MESSAGE_ID', 'ERR_MESSAGE_ID_NOT_FOUND', 'ERR_MESSAGE_NO_ACCESS'];
const CHANGE_MESSAGE: ErrorCode[] = [...ONE_MESSAGE, 'ERR_MESSAGE_NOT_A_SENDER', 'ERR_MESSAGE_ACTION_NOT_ALLOWED'];
const settings = <T extends z.ZodType>(resource: T, missing: ErrorCode, taken: ErrorCode) => ({
  list: { body: listOf(resource) },
  create: { body: dataOf(resource), errors: [taken] },
  get: { body: dataOf(resource), errors: [missing] },
  update: { body: dataOf(resource), errors: [missing] },
  delete: { body: dataOf(settingDeleted), errors: [missing] },
});
const reasons = settings(reasonResource, 'ERR_REASON_NOT_FOUND', 'ERR_REASON_ALREADY_EXISTS');
const rules = settings(ruleResource, 'ERR_RULE_NOT_FOUND', 'ERR_RULE_ALREADY_EXISTS');
const keywords = settings(keywordListResource, 'ERR_KEYWORD_NOT_FOUND', 'ERR_KEYWORD_ALREADY_EXISTS');
const reviewed = dataOf(z.object({ success: z.literal(true), message: z.string() }));

/** What each operation of this service answers (beyond the codes `commonErrors` gives every operation). */
export const responseSchemas: ResponseSchemas = {
  'send-message': { body: message, errors: SEND },
  'send-bot-message': { body: message, errors: SEND },
  'send-thread-message': { body: message, errors: [...SEND, ...ONE_MESSAGE, 'ERR_WRONG_MESSAGE_THREAD', 'ERR_MESSAGE_THREAD_NESTING'] },
  // `saved=true` lists the acting user's saved messages: refused without onBehalfOf.
  'list-all-messages': { body: messages, errors: ['ERR_EMPTY_ON_BEHALF_OF'] },
  'get-message-details': { body: message, errors: ONE_MESSAGE },
  'update-message': { body: message, errors: [...CHANGE_MESSAGE, 'ERR_INVALID_MESSAGE_DATA', 'ERR_EMPTY_MESSAGE_TEXT', 'ERR_INVALID_MESSAGE_TEXT'] },
  'delete-message': { body: message, errors: CHANGE_MESSAGE },
  'list-all-reactions': { body: listOf(reactionResource), errors: ONE_MESSAGE },
  'get-message-reactions': { body: listOf(reactionResource), errors: [...ONE_MESSAGE, 'ERR_INVALID_REACTION'] },
  'add-message-reactions': { body: message, errors: [...ONE_MESSAGE, 'ERR_INVALID_REACTION', 'ERR_MESSAGE_ACTION_NOT_ALLOWED'] },
  'remove-message-reactions': { body: message, errors: [...ONE_MESSAGE, 'ERR_INVALID_REACTION', 'ERR_REACTION_NOT_FOUND', 'ERR_MESSAGE_ACTION_NOT_ALLOWED'] },
  'list-all-thread-messages': { body: messages, errors: ONE_MESSAGE },
  // `asOf` reads one user's view of the conversation: refused without onBehalfOf.
  'user-list-user-messages': { body: messages, errors: ['ERR_UID_NOT_FOUND', 'ERR_EMPTY_ON_BEHALF_OF'] },
  'user-list-group-messages': { body: messages, errors: ['ERR_GUID_NOT_FOUND', 'ERR_GROUP_NOT_JOINED', 'ERR_EMPTY_ON_BEHALF_OF'] },
  'pin-message': { body: message, errors: [...ONE_MESSAGE, 'ERR_PINNED_MESSAGES_LIMIT_EXCEEDED'] },
  'unpin-message': { body: message, errors: ONE_MESSAGE },
  'import-messages': { body: importAnswerShape, errors: ['ERR_IMPORT_INVALID_MESSAGE_FORMAT', 'ERR_IMPORT_TOO_MANY_RECORDS'] },
  'list-reasons': reasons.list,
  'create-reason': reasons.create,
  'get-reason-details': reasons.get,
  'update-reason-details': reasons.update,
  'delete-reason': reasons.delete,
  'list-rules': rules.list,
  'create-rule': rules.create,
  'get-rule': rules.get,
  'update-rule': rules.update,
  'delete-rule': rules.delete,
  'list-rule-revisions': { body: listOf(ruleResource), errors: ['ERR_RULE_NOT_FOUND'] },
  'list-rule-keywords': keywords.list,
  'create-rule-keyword': keywords.create,
  'get-rule-keyword': keywords.get,
  'update-rule-keyword': keywords.update,
  'delete-rule-keyword': { ...keywords.delete, errors: ['ERR_KEYWORD_NOT_FOUND', 'ERR_KEYWORD_IN_USE'] },
  'flag-a-message': { body: dataOf(outcomeShape), errors: [...ONE_MESSAGE, 'ERR_REASON_NOT_FOUND'] },
  'list-flagged-messages': { body: listOf(reviewEntryResource) },
  'blockreview-flagged-message': { body: reviewed, errors: [...ONE_MESSAGE, 'ERR_MESSAGE_NOT_IN_REVIEW', 'ERR_MESSAGE_ALREADY_REVIEWED'] },
  'list-reviewed-messages': { body: listOf(reviewEntryResource) },
  'list-moderation-blocked-messages': { body: listOf(reviewEntryResource) },
  'review-blocked-message': { body: reviewed, errors: [...ONE_MESSAGE, 'ERR_MESSAGE_NOT_IN_REVIEW', 'ERR_MESSAGE_ALREADY_REVIEWED'] },
  'create-byo-agent': { status: 201, body: z.object({ agent: agentResource }), errors: ['ERR_AGENT_ALREADY_EXISTS', 'ERR_AGENT_URL_NOT_ALLOWED', 'ERR_TOOL_NOT_FOUND', 'ERR_UID_NOT_FOUND'] },
  'list-byo-agents': { body: listOf(agentResource) },
  'update-byo-agent': { body: agentAcknowledgement, errors: ['ERR_AGENT_NOT_FOUND', 'ERR_AGENT_URL_NOT_ALLOWED', 'ERR_TOOL_NOT_FOUND'] },
  'delete-byo-agent': { body: agentAcknowledgement, errors: ['ERR_AGENT_NOT_FOUND'] },
  'create-tool': { status: 201, body: toolResource, errors: ['ERR_TOOL_ALREADY_EXISTS'] },
  'list-tools': { body: listOf(toolResource) },
  'get-tool': { body: toolResource, errors: ['ERR_TOOL_NOT_FOUND'] },
  'update-tool': { body: toolResource, errors: ['ERR_TOOL_NOT_FOUND'] },
  'delete-tool': { body: agentAcknowledgement, errors: ['ERR_TOOL_NOT_FOUND', 'ERR_TOOL_IN_USE'] },
  'list-integrations': { body: dataOf(z.array(integrationResource)) },
  // The 2025 personal marks (ADR 0053).
  'save-message': { body: dataOf(savedMessageAnswer), errors: [...ONE_MESSAGE, 'ERR_SAVED_MESSAGES_LIMIT_EXCEEDED'] },
  'unsave-message': { body: dataOf(savedMessageAnswer), errors: ONE_MESSAGE },
  'mark-message-as-interacted': { body: dataOf(interactedAnswer), errors: ONE_MESSAGE },
  'subscribe-thread': { body: dataOf(outcomeShape), errors: [...ONE_MESSAGE, 'ERR_MESSAGE_THREAD_NESTING'] },
  'unsubscribe-thread': { body: dataOf(outcomeShape), errors: [...ONE_MESSAGE, 'ERR_MESSAGE_THREAD_NESTING'] },
  'list-threads': { body: listOf(threadRowResource) },
  'usage-metrics': { body: dataOf(usageMetricsAnswer) },
  'message-receipt-metrics': { body: dataOf(messageMetricsAnswer) },
};
