import { deepStrictEqual, fail } from 'node:assert/strict';
import type { Decider, DomainEvent } from './decider.js';
import { fold } from './decider.js';

/**
 * given(events).when(command).then(events) for a decider, independent of the test runner:
 * mismatches throw assertion errors that any runner reports.
 */
export function specFor<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) {
  return {
    given(history: readonly Event[]) {
      return {
        when(command: Command) {
          const run = (): Event[] => decider.decide(command, fold(decider, history));
          return {
            then(expected: readonly Event[]): void {
              deepStrictEqual(run(), expected);
            },
            thenNothingHappens(): void {
              deepStrictEqual(run(), []);
            },
            thenThrows(check: (error: unknown) => boolean): void {
              let produced: Event[] | undefined;
              try {
                produced = run();
              } catch (error) {
                if (!check(error)) throw error;
                return;
              }
              fail(`expected the command to be refused, it produced ${JSON.stringify(produced)}`);
            },
          };
        },
      };
    },
  };
}
