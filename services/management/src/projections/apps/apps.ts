import { appDocuments } from '@chat/contracts';
import type { AppDocument, AppDocumentEvent } from '@chat/contracts';
import type { Projection } from '@chat/mongo';

export const APPS_COLLECTION = 'apps';

export type { AppDocument };

/** One document per app; the fold is the one the webhooks process projects too (`@chat/contracts`). */
export const appsProjection: Projection<AppDocument, AppDocumentEvent> = { name: APPS_COLLECTION, ...appDocuments };
