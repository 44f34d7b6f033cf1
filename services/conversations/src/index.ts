// The package's public surface for tools beside the service (benchmarks, chatctl): the pieces they
// drive directly. The service itself runs from main.ts; other services never import this (ADR 0065).
export { CONVERSATION_COLLECTIONS, ConversationReadModels, storeOf } from './adapters/readModels.js';
export { ConversationReadModel } from './projections/conversationReadModel.js';
export { memoryConversationStores } from './projections/memoryStores.js';
export { usersProjection } from './projections/users.js';
