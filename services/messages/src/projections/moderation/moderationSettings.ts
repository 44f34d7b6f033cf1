import { moderationSettingsEventTypes } from '@chat/contracts';
import type { EventOf } from '@chat/contracts';
import type { Projection } from '@chat/mongo';
import { emptySettings, settingsAfter } from '../../domain/moderation/moderationSettings.js';
import type { ModerationSettings, SettingsEvent } from '../../domain/moderation/moderationSettings.js';

/**
 * An app's moderation settings and agents, one document per app, read whole by every send of the app
 * (from memory) and by the settings API. Kept as JSON text: FerretDB decodes nested documents on every
 * read (ADR 0006), and nobody reads a part of it.
 */
export interface ModerationSettingsDoc {
  appId: string;
  settings: string;
}

type Handled = EventOf<(typeof moderationSettingsEventTypes)[number]>;

export function moderationSettingsId(appId: string): string {
  return `moderation:${appId}`;
}

export function settingsOf(doc: ModerationSettingsDoc | null | undefined): ModerationSettings {
  return doc ? (JSON.parse(doc.settings) as ModerationSettings) : emptySettings();
}

/** Folded with the stream's own `settingsAfter`, so the read model and the decider agree. */
export const moderationSettingsProjection: Projection<ModerationSettingsDoc, Handled> = {
  name: 'moderation_settings',
  eventTypes: moderationSettingsEventTypes,
  documentIds: (event) => [moderationSettingsId(event.appId)],
  evolve: (doc, event) => ({
    appId: event.appId,
    settings: JSON.stringify(settingsAfter(settingsOf(doc), { type: event.type, data: event.data } as SettingsEvent)),
  }),
};
