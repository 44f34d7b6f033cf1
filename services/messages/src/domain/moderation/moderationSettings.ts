import { ApiError, agentToolV1, agentV1, keywordListV1, moderationReasonV1, moderationRuleV1 } from '@chat/contracts';
import type { Agent, AgentTool, ErrorCode, KeywordList, ModerationReason, ModerationRule } from '@chat/contracts';
import type { Decider, DomainEvent } from '@chat/eventsourcing';
import { MAX_PATTERN_TERMS_PER_APP, patternTermCount } from './moderationPolicy.js';

/**
 * An app's moderation settings (reasons, rules with their revisions, keyword lists) and its BYO
 * agents and tools: one stream per app, so a rule that names a keyword list is checked against the
 * lists as they are in the same decision.
 */
export interface ModerationSettings {
  reasons: ModerationReason[];
  /** The current revision of every rule. */
  rules: ModerationRule[];
  /** Every kept revision of every rule, oldest first. */
  ruleRevisions: ModerationRule[];
  keywordLists: KeywordList[];
  agents: Agent[];
  tools: AgentTool[];
}

/** Revisions kept per rule: enough to see how a rule changed, bounded so the stream state stays small. */
export const MAX_REVISIONS_PER_RULE = 20;

export type SettingsKind = 'reason' | 'rule' | 'keywordList' | 'agent' | 'tool';

export interface EntityOf {
  reason: ModerationReason;
  rule: ModerationRule;
  keywordList: KeywordList;
  agent: Agent;
  tool: AgentTool;
}

/** Create fails on an existing id; update on a missing one. */
export interface SaveSetting<K extends SettingsKind = SettingsKind> {
  type: 'SaveSetting';
  kind: K;
  mode: 'create' | 'update';
  id: string;
  fields: Partial<EntityOf[K]>;
  at: number;
  /** For an agent: whether a user with its uid exists (an agent answers as that user). */
  agentUserExists?: boolean;
}

export interface DeleteSetting {
  type: 'DeleteSetting';
  kind: SettingsKind;
  id: string;
  at: number;
}

export type SettingsCommand = SaveSetting | DeleteSetting;

export type SettingsEvent =
  | DomainEvent<'ModerationReasonSaved', { reason: ModerationReason }>
  | DomainEvent<'ModerationReasonDeleted', { id: string; deletedAt: number }>
  | DomainEvent<'ModerationRuleSaved', { rule: ModerationRule }>
  | DomainEvent<'ModerationRuleDeleted', { id: string; deletedAt: number }>
  | DomainEvent<'KeywordListSaved', { list: KeywordList }>
  | DomainEvent<'KeywordListDeleted', { id: string; deletedAt: number }>
  | DomainEvent<'AgentSaved', { agent: Agent }>
  | DomainEvent<'AgentDeleted', { uid: string; deletedAt: number }>
  | DomainEvent<'AgentToolSaved', { tool: AgentTool }>
  | DomainEvent<'AgentToolDeleted', { name: string; deletedAt: number }>;

interface KindSpec {
  label: string;
  notFound: ErrorCode;
  exists: ErrorCode;
  list(settings: ModerationSettings): ReadonlyArray<{ createdAt: number }>;
  keyOf(entity: object): string;
}

const specs: Record<SettingsKind, KindSpec> = {
  reason: { label: 'reason', notFound: 'ERR_REASON_NOT_FOUND', exists: 'ERR_REASON_ALREADY_EXISTS', list: (s) => s.reasons, keyOf: (e) => (e as ModerationReason).id },
  rule: { label: 'rule', notFound: 'ERR_RULE_NOT_FOUND', exists: 'ERR_RULE_ALREADY_EXISTS', list: (s) => s.rules, keyOf: (e) => (e as ModerationRule).id },
  keywordList: { label: 'keyword list', notFound: 'ERR_KEYWORD_NOT_FOUND', exists: 'ERR_KEYWORD_ALREADY_EXISTS', list: (s) => s.keywordLists, keyOf: (e) => (e as KeywordList).id },
  agent: { label: 'agent', notFound: 'ERR_AGENT_NOT_FOUND', exists: 'ERR_AGENT_ALREADY_EXISTS', list: (s) => s.agents, keyOf: (e) => (e as Agent).uid },
  tool: { label: 'tool', notFound: 'ERR_TOOL_NOT_FOUND', exists: 'ERR_TOOL_ALREADY_EXISTS', list: (s) => s.tools, keyOf: (e) => (e as AgentTool).name },
};

export function emptySettings(): ModerationSettings {
  return { reasons: [], rules: [], ruleRevisions: [], keywordLists: [], agents: [], tools: [] };
}

export function findSetting<K extends SettingsKind>(settings: ModerationSettings, kind: K, id: string): EntityOf[K] | undefined {
  const spec = specs[kind];
  return spec.list(settings).find((entity) => spec.keyOf(entity) === id) as EntityOf[K] | undefined;
}

export function settingNotFound(kind: SettingsKind, id: string): ApiError {
  const spec = specs[kind];
  return new ApiError(spec.notFound, `The ${spec.label} with id ${id} does not exist.`);
}

/** The entity as saved: the fields given over the current ones (or the defaults), checked whole. */
function completed(command: SaveSetting, existing: object | undefined, appId: string): object {
  const { kind, fields, at, id } = command;
  const base = { ...(existing ?? {}), ...fields, createdAt: (existing as { createdAt?: number } | undefined)?.createdAt ?? at, updatedAt: at };
  switch (kind) {
    case 'reason':
      return moderationReasonV1.parse({ description: '', ...base, id });
    case 'rule': {
      const revision = ((existing as ModerationRule | undefined)?.revision ?? 0) + 1;
      return moderationRuleV1.parse({ description: '', enabled: true, ...base, id, revision, revisionId: `${appId}_${id}_${revision}` });
    }
    case 'keywordList': {
      const revision = Number(((existing as KeywordList | undefined)?.revisionId ?? '').split('_').at(-1) ?? 0) || 0;
      return keywordListV1.parse({ description: '', isCSV: false, ...base, id, revisionId: `${appId}_${id}_${revision + 1}` });
    }
    case 'agent':
      return agentV1.parse({ isActive: true, tools: [], actions: [], metaData: {}, ...base, uid: id });
    case 'tool':
      return agentToolV1.parse({ description: '', doNotExecute: false, parameters: {}, ...base, name: id });
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown kind ${String(unreachable)}`);
    }
  }
}

/** A rule may only name keyword lists that exist, and an agent's tools must exist. */
function mustReferToExisting(settings: ModerationSettings, kind: SettingsKind, entity: object): void {
  if (kind === 'rule') {
    for (const condition of (entity as ModerationRule).conditions) {
      if (!condition.isKeywordsReferencePresent) continue;
      for (const listId of condition.value) {
        if (!findSetting(settings, 'keywordList', listId)) throw settingNotFound('keywordList', listId);
      }
    }
  }
  if (kind === 'agent') {
    for (const tool of (entity as Agent).tools) if (!findSetting(settings, 'tool', tool)) throw settingNotFound('tool', tool);
  }
}

function savedEvent(kind: SettingsKind, entity: object): SettingsEvent {
  switch (kind) {
    case 'reason':
      return { type: 'ModerationReasonSaved', data: { reason: entity as ModerationReason } };
    case 'rule':
      return { type: 'ModerationRuleSaved', data: { rule: entity as ModerationRule } };
    case 'keywordList':
      return { type: 'KeywordListSaved', data: { list: entity as KeywordList } };
    case 'agent':
      return { type: 'AgentSaved', data: { agent: entity as Agent } };
    case 'tool':
      return { type: 'AgentToolSaved', data: { tool: entity as AgentTool } };
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown kind ${String(unreachable)}`);
    }
  }
}

function deletedEvent(kind: SettingsKind, id: string, deletedAt: number): SettingsEvent {
  switch (kind) {
    case 'reason':
      return { type: 'ModerationReasonDeleted', data: { id, deletedAt } };
    case 'rule':
      return { type: 'ModerationRuleDeleted', data: { id, deletedAt } };
    case 'keywordList':
      return { type: 'KeywordListDeleted', data: { id, deletedAt } };
    case 'agent':
      return { type: 'AgentDeleted', data: { uid: id, deletedAt } };
    case 'tool':
      return { type: 'AgentToolDeleted', data: { name: id, deletedAt } };
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown kind ${String(unreachable)}`);
    }
  }
}

function decideSave(command: SaveSetting, settings: ModerationSettings, appId: string): SettingsEvent[] {
  const spec = specs[command.kind];
  const existing = findSetting(settings, command.kind, command.id);
  if (command.mode === 'create' && existing) throw new ApiError(spec.exists, `A ${spec.label} with id ${command.id} already exists.`);
  if (command.mode === 'update' && !existing) throw settingNotFound(command.kind, command.id);
  if (command.kind === 'agent' && command.mode === 'create' && command.agentUserExists !== true) {
    throw new ApiError('ERR_UID_NOT_FOUND', `The user with uid ${command.id} does not exist: create the agent's user first (it sends the agent's replies).`);
  }
  const entity = completed(command, existing, appId);
  mustReferToExisting(settings, command.kind, entity);
  const event = savedEvent(command.kind, entity);
  mustKeepPatternsBounded(settings, command.kind, event);
  return [event];
}

/**
 * Every replica compiles an app's pattern terms and reads them on every send (ADR 0037): a save that
 * would take the app past MAX_PATTERN_TERMS_PER_APP is refused. One that lowers the count passes.
 */
function mustKeepPatternsBounded(settings: ModerationSettings, kind: SettingsKind, event: SettingsEvent): void {
  if (kind !== 'rule' && kind !== 'keywordList') return;
  const after = patternTermCount(settingsAfter(settings, event));
  if (after <= MAX_PATTERN_TERMS_PER_APP || after <= patternTermCount(settings)) return;
  const field = kind === 'rule' ? 'conditions' : 'searchTerms';
  const problem = `the app's enabled rules would use ${after} pattern terms; at most ${MAX_PATTERN_TERMS_PER_APP} are allowed per app`;
  throw new ApiError('ERR_BAD_REQUEST', `${field}: ${problem}`, { fields: [{ field, problem }] });
}

function decideDelete(command: DeleteSetting, settings: ModerationSettings): SettingsEvent[] {
  if (!findSetting(settings, command.kind, command.id)) throw settingNotFound(command.kind, command.id);
  if (command.kind === 'keywordList') {
    const user = settings.rules.find((rule) => rule.conditions.some((c) => c.isKeywordsReferencePresent && c.value.includes(command.id)));
    if (user) throw new ApiError('ERR_KEYWORD_IN_USE', `The rule ${user.id} uses the keyword list ${command.id}; change or delete the rule first.`);
  }
  if (command.kind === 'tool') {
    const user = settings.agents.find((agent) => agent.tools.includes(command.id));
    if (user) throw new ApiError('ERR_TOOL_IN_USE', `The agent ${user.uid} uses the tool ${command.id}; change or delete the agent first.`);
  }
  return [deletedEvent(command.kind, command.id, command.at)];
}

function without<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  return items.filter(keep);
}

function replaced<T>(items: readonly T[], item: T, same: (a: T) => boolean): T[] {
  const index = items.findIndex(same);
  return index === -1 ? [...items, item] : items.map((existing, i) => (i === index ? item : existing));
}

/** The settings after one event: shared by the stream's state and the read model, so both agree. */
export function settingsAfter(settings: ModerationSettings, event: SettingsEvent): ModerationSettings {
  switch (event.type) {
    case 'ModerationReasonSaved':
      return { ...settings, reasons: replaced(settings.reasons, event.data.reason, (r) => r.id === event.data.reason.id) };
    case 'ModerationReasonDeleted':
      return { ...settings, reasons: without(settings.reasons, (r) => r.id !== event.data.id) };
    case 'ModerationRuleSaved': {
      const { rule } = event.data;
      const revisions = [...settings.ruleRevisions.filter((r) => r.id !== rule.id || r.revision !== rule.revision), rule];
      const ofRule = revisions.filter((r) => r.id === rule.id);
      const dropped = new Set(ofRule.slice(0, Math.max(0, ofRule.length - MAX_REVISIONS_PER_RULE)));
      return { ...settings, rules: replaced(settings.rules, rule, (r) => r.id === rule.id), ruleRevisions: revisions.filter((r) => !dropped.has(r)) };
    }
    case 'ModerationRuleDeleted':
      return {
        ...settings,
        rules: without(settings.rules, (r) => r.id !== event.data.id),
        ruleRevisions: without(settings.ruleRevisions, (r) => r.id !== event.data.id),
      };
    case 'KeywordListSaved':
      return { ...settings, keywordLists: replaced(settings.keywordLists, event.data.list, (l) => l.id === event.data.list.id) };
    case 'KeywordListDeleted':
      return { ...settings, keywordLists: without(settings.keywordLists, (l) => l.id !== event.data.id) };
    case 'AgentSaved':
      return { ...settings, agents: replaced(settings.agents, event.data.agent, (a) => a.uid === event.data.agent.uid) };
    case 'AgentDeleted':
      return { ...settings, agents: without(settings.agents, (a) => a.uid !== event.data.uid) };
    case 'AgentToolSaved':
      return { ...settings, tools: replaced(settings.tools, event.data.tool, (t) => t.name === event.data.tool.name) };
    case 'AgentToolDeleted':
      return { ...settings, tools: without(settings.tools, (t) => t.name !== event.data.name) };
    default: {
      const unreachable: never = event;
      throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The app's id comes with the command: revision ids name it. */
export const moderationSettingsDecider: Decider<ModerationSettings, SettingsCommand & { appId: string }, SettingsEvent> = {
  initialState: emptySettings,
  decide: (command, settings) => (command.type === 'SaveSetting' ? decideSave(command, settings, command.appId) : decideDelete(command, settings)),
  evolve: settingsAfter,
  snapshotVersion: 1,
};

export function moderationSettingsStream(appId: string): string {
  return `moderation:${appId}`;
}
