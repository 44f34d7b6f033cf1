export { fold } from './decider.js';
export type { Decider, DomainEvent } from './decider.js';
export type { AppendResult, Commit, CommitStore, EventPublisher, Snapshot, StreamHead } from './store.js';
export { handleCommand } from './handleCommand.js';
export type { CommandMetadata, CommandResult, HandleCommandOptions } from './handleCommand.js';
export { InMemoryCommitStore } from './memoryStore.js';
export { specFor } from './specification.js';
export { testEnvelope } from './testEnvelope.js';
