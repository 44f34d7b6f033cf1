// The package's public surface for tools beside the service (benchmarks, chatctl): the pieces they
// drive directly. The service itself runs from main.ts; other services never import this (ADR 0065).
export { ModerationPolicy } from './domain/moderation/moderationPolicy.js';
export { conversationLogDecider, conversationLogStream } from './domain/conversationLog.js';
export { MessagesReadModels } from './adapters/readModels.js';
export { docOfSent, messageDocId } from './projections/messages.js';
