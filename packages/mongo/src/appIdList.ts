import type { EventEnvelope } from '@chat/contracts';
import type { Collection, Document } from 'mongodb';
import type { Stored } from './documentStore.js';
import { findByIds } from './findByIds.js';
import type { Projection } from './projectionRuntime.js';

/**
 * The ids of an app's documents of one kind, in the order they were added (`_id` = app id): what lets
 * a service read an app's webhooks or keys by `_id` and one `_id $in` (`findByIds`) where a filter on
 * `appId` scans every app's documents on FerretDB (ADR 0006, 0076).
 *
 * `complete` is true once the app's creation was applied: a list started by a later event (an app
 * created before the list existed) lacks the app's older documents, and its reader falls back to the
 * filter on `appId`.
 */
export interface AppIdList {
  appId: string;
  ids: string[];
  complete: boolean;
}

export interface AppIdListSpec<Event extends EventEnvelope> {
  name: string;
  /** A family exported by `@chat/contracts`, and the type of the app's creation. */
  eventTypes: readonly Event['type'][];
  /** The event that creates the app (the list is complete from it on). */
  creates(event: Event): boolean;
  /** The id an event adds to the list, if any. */
  added(event: Event): string | undefined;
  /** The id an event removes from the list, if any. */
  removed?(event: Event): string | undefined;
}

/**
 * The projection of an app's id list, fed by the app's stream: its per-source position makes a
 * redelivery a no-op, and adding an id already listed or removing one absent changes nothing.
 */
export function appIdListProjection<Event extends EventEnvelope>(spec: AppIdListSpec<Event>): Projection<AppIdList, Event> {
  return {
    name: spec.name,
    eventTypes: spec.eventTypes,
    documentIds: (event) => [event.appId],
    sourceOf: () => 'app',
    evolve(document, event) {
      let list = document ?? { appId: event.appId, ids: [], complete: false };
      if (spec.creates(event) && !list.complete) list = { ...list, complete: true };
      const added = spec.added(event);
      if (added !== undefined && !list.ids.includes(added)) list = { ...list, ids: [...list.ids, added] };
      const removed = spec.removed?.(event);
      if (removed !== undefined && list.ids.includes(removed)) list = { ...list, ids: list.ids.filter((id) => id !== removed) };
      // An event that starts no list and adds nothing writes nothing.
      return document === null && list.ids.length === 0 && !list.complete ? null : list;
    },
  };
}

/**
 * The documents the apps' id lists name, read by `_id` (two reads however many apps the store holds),
 * per app in list order; `unlisted` names the apps without a complete list, for the caller to read
 * by `appId` as before. A listed document of another app (never written so) is left out.
 */
export async function findByAppIdLists<D extends Document & { appId: string }>(
  lists: Collection<Stored<AppIdList>>,
  documents: Collection<D>,
  appIds: readonly string[],
  documentId: (appId: string, id: string) => string,
): Promise<{ found: D[]; unlisted: string[] }> {
  const listed = await findByIds(lists, appIds);
  const unlisted = appIds.filter((appId) => !listed.get(appId)?.complete);
  const wanted = appIds.flatMap((appId) => (listed.get(appId)?.complete ? listed.get(appId)!.ids.map((id) => ({ appId, _id: documentId(appId, id) })) : []));
  const read = wanted.length === 0 ? new Map<string, D>() : await findByIds(documents, wanted.map((w) => w._id));
  const found = wanted.flatMap(({ appId, _id }) => {
    const doc = read.get(_id);
    return doc && doc.appId === appId ? [doc] : [];
  });
  return { found, unlisted };
}
