import { ApiError } from '@chat/contracts';

export type SettingValue = boolean;
/** Stored as pairs: setting keys contain dots, which stored field names must not. */
export interface SettingEntry {
  key: string;
  value: SettingValue;
}

/**
 * The settings an app can set (CometChat's `core.*` keys, plus ours), each a boolean with its
 * default. `effective`: whether this platform acts on it (docs/behaviour/management.md); the others
 * are stored and shown so CometChat's dashboards and scripts keep working.
 */
export const settingsCatalogue: Readonly<Record<string, { default: SettingValue; effective: boolean }>> = {
  'core.conversations.updateOnGroupActions': { default: true, effective: false },
  'core.conversations.updateOnReplies': { default: true, effective: false },
  'core.threads.updateOnMessageActions': { default: false, effective: false },
  'core.conversations.updateOnCallActivity': { default: true, effective: false },
  'core.conversations.updateOnMessageActions': { default: true, effective: false },
  'core.conversations.updateOnCustomMessage': { default: true, effective: false },
  'core.notifications.push.enabled': { default: true, effective: false },
  // ours: the app's webhooks deliver only while this is true (the webhooks process reads it)
  'webhooks.enabled': { default: true, effective: true },
};

/** The value of every setting: the app's own over the defaults. */
export function effectiveSettings(own: readonly SettingEntry[]): Record<string, SettingValue> {
  const values = new Map(own.map((entry) => [entry.key, entry.value]));
  return Object.fromEntries(Object.entries(settingsCatalogue).map(([key, spec]) => [key, values.get(key) ?? spec.default]));
}

/** The app's own settings after `changes`, one entry per key. */
export function mergeSettings(own: readonly SettingEntry[], changes: readonly SettingEntry[]): SettingEntry[] {
  const changed = new Set(changes.map((c) => c.key));
  return [...own.filter((entry) => !changed.has(entry.key)), ...changes];
}

/** Checks a `settings` object key by key: an unknown key or a wrong type is a 400 naming it. */
export function validSettings(input: Readonly<Record<string, unknown>>): SettingEntry[] {
  const entries = Object.entries(input);
  if (entries.length === 0) throw new ApiError('ERR_BAD_REQUEST', 'settings: must name at least one setting.', { field: 'settings' });
  for (const [key, value] of entries) {
    const field = `settings.${key}`;
    if (!Object.hasOwn(settingsCatalogue, key)) {
      throw new ApiError('ERR_BAD_REQUEST', `${field}: unknown setting.`, { field });
    }
    if (typeof value !== 'boolean') throw new ApiError('ERR_BAD_REQUEST', `${field}: must be a boolean.`, { field });
  }
  return entries.map(([key, value]) => ({ key, value: value as SettingValue }));
}
