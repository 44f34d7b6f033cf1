/**
 * `@chat/eventsourcing/testing`: the test kit (an in-memory commit store, given/when/then for deciders,
 * envelopes as a producer would publish them). Kept off the main entry so that nothing a service
 * loads at run time brings it along.
 */
export { InMemoryCommitStore } from './memoryStore.js';
export { specFor } from './specification.js';
export { testEnvelope } from './testEnvelope.js';
