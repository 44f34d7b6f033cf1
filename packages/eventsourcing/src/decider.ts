/** An event as the domain produces it: no envelope, no position yet. */
export interface DomainEvent<Type extends string = string, Data extends object = Record<string, unknown>> {
  type: Type;
  data: Data;
}

/**
 * A pure aggregate in the shape of emmett's decider. `decide` throws a coded error to refuse a
 * command; time, ids and any facts gathered from read models arrive inside the command.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
  /**
   * Version of the state's shape. Each commit stores the state it produced; a stored snapshot with
   * another version is ignored and the stream is replayed instead, so changing `evolve` is safe.
   */
  snapshotVersion: number;
}

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState());
}
