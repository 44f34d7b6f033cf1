export { fold } from './decider.js';
export type { Decider, DomainEvent } from './decider.js';
export type {
  AppendBatch,
  AppendResult,
  Commit,
  CommitStore,
  EventPublisher,
  JournalEntry,
  ReadHeadOptions,
  Snapshot,
  StreamHead,
} from './store.js';
export { commitSlot } from './store.js';
export { CommandRunner, PUBLISH_WAIT_MS } from './commandRunner.js';
export type { CommandRunnerOptions, OwnReadModels, RunnerCounters } from './commandRunner.js';
export { commandMetadata } from './command.js';
export type { CommandMetadata, CommandRequest, CommandResult } from './command.js';
export { Outbox } from './outbox.js';
export type { OutboxLogger, OutboxOptions } from './outbox.js';
export type { GroupCommitOptions } from './groupCommit.js';
export { Coalescer } from './coalescer.js';
export type { CoalescerOptions } from './coalescer.js';
export { RecentlyUsed } from './recentlyUsed.js';
export { backoffDelay } from './backoff.js';
export type { Backoff } from './backoff.js';
export { DEFAULT_MAX_REPLAY_EVENTS, eventsAsOf, streamPage } from './timeTravel.js';
export type { CommitReader, StreamReader } from './timeTravel.js';
