import { ApiError, settingsCatalogue } from '@chat/contracts';
import type { SettingEntry, SettingValue } from '@chat/contracts';

// The catalogue and the merge rule are part of what management publishes (`@chat/contracts`).
export { effectiveSettings, mergeSettings, settingsCatalogue } from '@chat/contracts';
export type { SettingEntry, SettingValue } from '@chat/contracts';

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
