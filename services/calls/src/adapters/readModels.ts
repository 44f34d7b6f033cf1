import { ProjectedReadModels, ensureIndexes, findPage, stripStoredFields } from '@chat/mongo';
import type { KeysetOrder, PagePosition, Stored } from '@chat/mongo';
import type { Collection, Db, Filter } from 'mongodb';
import { callDocId, callsProjection } from '../projections/calls.js';
import type { CallDoc } from '../projections/calls.js';

/** A calls list query (`GET /calls`); `uids` keeps the calls every one of them took part in. */
export interface CallQuery {
  appId: string;
  uids: readonly string[];
  type?: 'audio' | 'video';
  mode?: 'call' | 'meet' | 'presenter';
  status?: string;
  receiverType?: 'user' | 'group';
  participantsCount?: number;
  hasRecording?: boolean;
  hasTranscription?: boolean;
  /** Calls that started at or after this time. */
  startedFrom?: number;
  /** Calls that ended at or before this time. */
  endedBy?: number;
}

/** Calls newest first; the session id (unique in an app) breaks ties, so a cursor's key names one call. */
const CALL_ORDER: KeysetOrder = [
  ['initiatedAt', -1],
  ['sessionId', 1],
];

/** The calls service's one read model: a document per call session, folded from call messages. */
export class CallsReadModels extends ProjectedReadModels {
  private readonly calls: Collection<Stored<CallDoc>>;

  constructor(db: Db) {
    super(db);
    this.calls = this.projected('calls', callsProjection);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.db, 'calls', [{ keys: { appId: 1, initiatedAt: -1 }, options: { name: 'app_calls' } }]);
  }

  async findCall(appId: string, sessionId: string): Promise<CallDoc | null> {
    const doc = await this.calls.findOne({ _id: callDocId(appId, sessionId) } as Filter<Stored<CallDoc>>);
    return doc ? stripStoredFields<CallDoc>(doc) : null;
  }

  /** The app's calls that overlap the range (started before its end, not ended before its start). */
  async callsOverlapping(appId: string, from: number, to: number): Promise<CallDoc[]> {
    const docs = await this.calls.find({ appId, startedAt: { $lte: to } } as Filter<Stored<CallDoc>>).toArray();
    return docs.map((doc) => stripStoredFields<CallDoc>(doc)).filter((call) => call.endedAt === undefined || call.endedAt >= from);
  }

  /** One page of calls, newest first (by CometChat's `page` or after a cursor's key), and how many match. */
  async pageCalls(query: CallQuery, position: PagePosition, perPage: number): Promise<{ total: number; items: CallDoc[]; more: boolean }> {
    const filter: Record<string, unknown> = { appId: query.appId };
    if (query.uids.length > 0) filter['uids'] = { $all: [...query.uids] };
    if (query.type !== undefined) filter['type'] = query.type;
    if (query.mode !== undefined) filter['mode'] = query.mode;
    if (query.status !== undefined) filter['status'] = query.status;
    if (query.receiverType !== undefined) filter['receiverType'] = query.receiverType;
    if (query.participantsCount !== undefined) filter['participantsCount'] = query.participantsCount;
    if (query.hasRecording !== undefined) filter['hasRecording'] = query.hasRecording;
    if (query.hasTranscription !== undefined) filter['hasTranscription'] = query.hasTranscription;
    if (query.startedFrom !== undefined) filter['startedAt'] = { $gte: query.startedFrom };
    if (query.endedBy !== undefined) filter['endedAt'] = { $lte: query.endedBy };
    const { total, items, more } = await findPage(this.calls, filter as Filter<Stored<CallDoc>>, CALL_ORDER, position, perPage);
    return { total, items: items.map((doc) => stripStoredFields<CallDoc>(doc as Stored<CallDoc>)), more };
  }
}
