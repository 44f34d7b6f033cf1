import type { NotificationChannel, NotificationProvider } from '@chat/contracts';
import type { ConfigurationDirectory } from '@chat/runtime';
import type { NotificationReadModels } from '../adapters/readModels.js';
import type { OpenProvider } from '../adapters/providers/index.js';
import { providerKey } from '../domain/appConfig.js';
import type { AppConfigState } from '../domain/appConfig.js';
import { effectiveSettings } from '../domain/settings.js';
import type { NotificationSettings } from '../domain/settings.js';
import type { SecretBox } from '@chat/delivery';

/** An app's configuration ready for the notifier: effective settings, providers with secrets opened. */
export interface AppEntry {
  settings: NotificationSettings;
  providers: Map<string, OpenProvider>;
  defaults: AppConfigState['defaults'];
}

/**
 * The notification configuration of each app: the shared configuration directory (fenced against this
 * service's topic, where the configuration events are, ADR 0035), which keeps it in memory.
 */
export type AppDirectory = ConfigurationDirectory<AppEntry>;

/** Loads an app's notification configuration from the read model, opening each provider's secrets once. */
export function appConfigLoader(readModels: NotificationReadModels, secrets: SecretBox): (appId: string) => Promise<AppEntry> {
  return async (appId) => {
    const doc = await readModels.findApp(appId);
    const providers = new Map<string, OpenProvider>();
    for (const [key, saved] of Object.entries(doc?.providers ?? {})) {
      const opened = Object.fromEntries(Object.entries(saved.secrets).map(([name, sealed]) => [name, secrets.open(sealed)]));
      providers.set(key, { channel: saved.channel, provider: saved.provider, providerId: saved.providerId, settings: saved.settings, secrets: opened });
    }
    return { settings: effectiveSettings(doc?.settings ?? null), providers, defaults: doc?.defaults ?? {} };
  };
}

/** An enabled provider of the channel (custom or built-in), if the app has one. */
export function enabledProviders(entry: AppEntry, channel: NotificationChannel): OpenProvider[] {
  return [...entry.providers.values()].filter((p) => p.channel === channel && p.settings['isEnabled'] !== false);
}

export function providerOf(entry: AppEntry, provider: NotificationProvider, providerId: string): OpenProvider | undefined {
  return entry.providers.get(providerKey(provider, providerId));
}
