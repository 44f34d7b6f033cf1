import { LoadOnce, WATCHED_EVENT_SETTLE_MS } from '@chat/eventsourcing';
import type { NotificationChannel, NotificationProvider, SecretBox } from '@chat/contracts';
import type { NotificationReadModels } from '../adapters/readModels.js';
import type { OpenProvider } from '../adapters/providers/index.js';
import { providerKey } from '../domain/appConfig.js';
import type { AppConfigState } from '../domain/appConfig.js';
import { effectiveSettings } from '../domain/settings.js';
import type { NotificationSettings } from '../domain/settings.js';

/** An app's configuration ready for the notifier: effective settings, providers with secrets opened. */
export interface AppEntry {
  settings: NotificationSettings;
  providers: Map<string, OpenProvider>;
  defaults: AppConfigState['defaults'];
}

/**
 * The notification configuration of each app, read from the read model and kept in memory until
 * one of the app's configuration events is applied (the consumer then forgets the app), or another
 * replica's consumer may be applying one (this replica's watch saw it: `forgetWhileApplied`).
 */
export class AppDirectory {
  private readonly apps = new LoadOnce<AppEntry>((appId) => this.load(appId));

  constructor(
    private readonly readModels: NotificationReadModels,
    private readonly secrets: SecretBox,
  ) {}

  entry(appId: string): Promise<AppEntry> {
    return this.apps.get(appId);
  }

  forget(appIds: Iterable<string>): void {
    this.apps.forget(appIds);
  }

  /** Seen on the watch, perhaps not yet in the read model: loaded afresh until the projection must have it. */
  forgetWhileApplied(appIds: Iterable<string>): void {
    this.apps.forget(appIds, WATCHED_EVENT_SETTLE_MS);
  }

  private async load(appId: string): Promise<AppEntry> {
    const doc = await this.readModels.findApp(appId);
    const providers = new Map<string, OpenProvider>();
    for (const [key, saved] of Object.entries(doc?.providers ?? {})) {
      const secrets = Object.fromEntries(Object.entries(saved.secrets).map(([name, sealed]) => [name, this.secrets.open(sealed)]));
      providers.set(key, { channel: saved.channel, provider: saved.provider, providerId: saved.providerId, settings: saved.settings, secrets });
    }
    return { settings: effectiveSettings(doc?.settings ?? null), providers, defaults: doc?.defaults ?? {} };
  }
}

/** An enabled provider of the channel (custom or built-in), if the app has one. */
export function enabledProviders(entry: AppEntry, channel: NotificationChannel): OpenProvider[] {
  return [...entry.providers.values()].filter((p) => p.channel === channel && p.settings['isEnabled'] !== false);
}

export function providerOf(entry: AppEntry, provider: NotificationProvider, providerId: string): OpenProvider | undefined {
  return entry.providers.get(providerKey(provider, providerId));
}
