// The package's public surface for tools beside the service (benchmarks, chatctl): the pieces they
// drive directly. The service itself runs from main.ts; other services never import this (ADR 0065).
export { userDecider, userStream } from './domain/users/user.js';
export { userDocId, usersProjection } from './projections/users/users.js';
export { UserDirectory } from './adapters/users/userDirectory.js';
