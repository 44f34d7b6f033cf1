import { ApiError } from '@chat/contracts';
import { specFor } from '@chat/eventsourcing/testing';
import { describe, expect, it } from 'vitest';
import { MAX_REVISIONS_PER_RULE, emptySettings, moderationSettingsDecider, settingsAfter } from './moderationSettings.js';
import type { SettingsEvent } from './moderationSettings.js';

const spec = specFor(moderationSettingsDecider);
const refusedWith = (code: string) => (error: unknown) => error instanceof ApiError && error.code === code;
const base = { appId: 'app', at: 100 } as const;

const list = (id: string, terms: string[], at = 50): SettingsEvent => ({
  type: 'KeywordListSaved',
  data: { list: { id, name: id, description: '', category: 'word', isCSV: false, searchTerms: terms, createdAt: at, updatedAt: at, revisionId: `app_${id}_1` } },
});
const ruleFields = (listId: string) => ({
  name: 'No bad words',
  action: ['blockMessage' as const],
  conditions: [{ id: 1, entity: 'message', operand: 'text' as const, operator: 'contains' as const, category: 'word' as const, isKeywordsReferencePresent: true, isMediaPresent: false, value: [listId] }],
});

describe('moderation settings decider', () => {
  it('creates a rule over an existing list as revision 1, and an update as the next revision', () => {
    const created = moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: ruleFields('bad') }, settingsAfter(emptySettings(), list('bad', ['x'])));
    expect(created).toEqual([
      { type: 'ModerationRuleSaved', data: { rule: { id: 'r', description: '', enabled: true, ...ruleFields('bad'), createdAt: 100, updatedAt: 100, revision: 1, revisionId: 'app_r_1' } } },
    ]);
    spec
      .given([list('bad', ['x']), ...created])
      .when({ ...base, at: 200, type: 'SaveSetting', kind: 'rule', mode: 'update', id: 'r', fields: { enabled: false } })
      .then([{ type: 'ModerationRuleSaved', data: { rule: { id: 'r', description: '', ...ruleFields('bad'), enabled: false, createdAt: 100, updatedAt: 200, revision: 2, revisionId: 'app_r_2' } } }]);
  });

  it('refuses a rule naming a missing list, a duplicate id, an unknown id, and deleting a list in use', () => {
    spec.given([]).when({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: ruleFields('nope') }).thenThrows(refusedWith('ERR_KEYWORD_NOT_FOUND'));
    const history = [list('bad', ['x']), ...moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: ruleFields('bad') }, settingsAfter(emptySettings(), list('bad', ['x'])))];
    spec.given(history).when({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: ruleFields('bad') }).thenThrows(refusedWith('ERR_RULE_ALREADY_EXISTS'));
    spec.given(history).when({ ...base, type: 'SaveSetting', kind: 'reason', mode: 'update', id: 'spam', fields: { name: 'x' } }).thenThrows(refusedWith('ERR_REASON_NOT_FOUND'));
    spec.given(history).when({ ...base, type: 'DeleteSetting', kind: 'keywordList', id: 'bad' }).thenThrows(refusedWith('ERR_KEYWORD_IN_USE'));
    spec.given(history).when({ ...base, type: 'DeleteSetting', kind: 'rule', id: 'r' }).then([{ type: 'ModerationRuleDeleted', data: { id: 'r', deletedAt: 100 } }]);
  });

  it('an agent needs its user, and names only existing tools', () => {
    const agent = { name: 'Helper', integrateWith: 'ag-ui', integrationType: 'agent' as const, integrationMeta: { url: 'http://agent', headers: {} } };
    spec.given([]).when({ ...base, type: 'SaveSetting', kind: 'agent', mode: 'create', id: 'helper', fields: agent, agentUserExists: false }).thenThrows(refusedWith('ERR_UID_NOT_FOUND'));
    spec.given([]).when({ ...base, type: 'SaveSetting', kind: 'agent', mode: 'create', id: 'helper', fields: { ...agent, tools: ['t'] }, agentUserExists: true }).thenThrows(refusedWith('ERR_TOOL_NOT_FOUND'));
    const [saved] = moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'agent', mode: 'create', id: 'helper', fields: agent, agentUserExists: true }, emptySettings());
    expect(saved).toMatchObject({ type: 'AgentSaved', data: { agent: { uid: 'helper', isActive: true, tools: [], integrationMeta: { url: 'http://agent' } } } });
  });

  it('keeps the last revisions of a rule only, and forgets them with the rule', () => {
    let settings = settingsAfter(emptySettings(), list('bad', ['x']));
    for (let i = 0; i < MAX_REVISIONS_PER_RULE + 5; i++) {
      const events = moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'rule', mode: i === 0 ? 'create' : 'update', id: 'r', fields: ruleFields('bad') }, settings);
      settings = events.reduce(settingsAfter, settings);
    }
    expect(settings.ruleRevisions.map((r) => r.revision)).toEqual(Array.from({ length: MAX_REVISIONS_PER_RULE }, (_, i) => i + 6));
    expect(settings.rules.map((r) => r.revision)).toEqual([MAX_REVISIONS_PER_RULE + 5]);
    settings = settingsAfter(settings, { type: 'ModerationRuleDeleted', data: { id: 'r', deletedAt: 1 } });
    expect(settings.ruleRevisions).toEqual([]);
  });

  it('refuses a save that takes the app past its pattern terms, and lets one that lowers them pass', () => {
    const patternList = (id: string, count: number): SettingsEvent => ({
      type: 'KeywordListSaved',
      data: { list: { id, name: id, description: '', category: 'pattern', isCSV: false, searchTerms: Array.from({ length: count }, (_, i) => `${id}${i}\\d+`), createdAt: 1, updatedAt: 1, revisionId: `app_${id}_1` } },
    });
    const over = (ids: string[]) => ({ ...ruleFields('x'), conditions: [{ ...ruleFields('x').conditions[0]!, category: 'pattern' as const, value: ids }] });
    const lists = [patternList('a', 250), patternList('b', 250), patternList('c', 1)];
    const atLimit = settingsAfter(settingsAfter(settingsAfter(emptySettings(), lists[0]!), lists[1]!), lists[2]!);
    expect(() => moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: over(['a', 'b']) }, atLimit)).not.toThrow();
    spec.given(lists).when({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: over(['a', 'b', 'c']) }).thenThrows((error) => error instanceof ApiError && error.code === 'ERR_BAD_REQUEST' && /conditions: .*501 pattern terms/.test(error.message));
    const [saved] = moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'rule', mode: 'create', id: 'r', fields: over(['a', 'b']) }, atLimit);
    spec
      .given([...lists, saved!])
      .when({ ...base, type: 'SaveSetting', kind: 'keywordList', mode: 'update', id: 'b', fields: { searchTerms: ['more', 'than', 'before'].concat(Array.from({ length: 250 }, (_, i) => `t${i}`)) } })
      .thenThrows(refusedWith('ERR_BAD_REQUEST'));
    const withRule = settingsAfter(atLimit, saved!);
    expect(moderationSettingsDecider.decide({ ...base, type: 'SaveSetting', kind: 'keywordList', mode: 'update', id: 'b', fields: { searchTerms: ['fewer'] } }, withRule)).toHaveLength(1);
  });
});
