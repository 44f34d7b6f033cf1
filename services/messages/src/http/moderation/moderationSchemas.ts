import { ApiError, isUid, normalizeUid, ruleActions } from '@chat/contracts';
import { tenantHeaderRefusal, urlRefusal } from '@chat/delivery';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { cursorParameter } from '@chat/http';
import { z } from 'zod';
import { SAVE_CHECK_MS, patternProblem } from '../../domain/moderation/moderationPatterns.js';

/** Ids of reasons, rules and lists: they appear in paths and revision ids. */
const settingId = z.string('a string').trim().regex(/^[A-Za-z0-9_-]{1,100}$/, '1 to 100 letters, digits, "-" or "_"');
const name = z.string('a string').trim().min(1, 'not empty').max(100, 'at most 100 characters');
const description = z.string('a string').max(1000, 'at most 1000 characters');
const term = z.string('a string').trim().min(1, 'not empty').max(200, 'at most 200 characters');
/** CometChat sends terms as one comma-separated string (its form field) or as a list. */
const terms = (max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter((part) => part !== '') : value),
    z.array(term, 'a list of terms (or one comma-separated string)').min(1, 'at least one term').max(max, `at most ${max} terms`),
  );

const conditionSchema = z.object({
  id: z.number('a number').int().min(1).optional(),
  entity: z.literal('message', 'message').default('message'),
  operand: z.enum(['text', 'image', 'video', 'custom'], 'text, image, video or custom'),
  operator: z.enum(['contains', 'equals'], 'contains or equals').default('contains'),
  category: z.enum(['word', 'pattern'], 'word or pattern').default('word'),
  isKeywordsReferencePresent: z.boolean('true or false').default(false),
  isMediaPresent: z.boolean('true or false').default(false),
  value: z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(term, 'a list').min(1, 'at least one value').max(1000, 'at most 1000 values')),
});

const ruleFields = {
  name,
  description: description.optional(),
  enabled: z.boolean('true or false').optional(),
  action: z.array(z.enum(ruleActions, ruleActions.join(', ')), 'a list of actions').min(1, 'at least one action').max(ruleActions.length),
  conditions: z.array(conditionSchema, 'a list of conditions').min(1, 'at least one condition').max(20, 'at most 20 conditions'),
  /** Sender/receiver filters narrow a rule to some users or groups: not supported, so refused rather than ignored. */
  filters: z.array(z.unknown()).max(0, 'sender and receiver filters are not supported by this deployment (docs/behaviour/moderation.md)').optional(),
};

export const createRuleBody = z.object({ id: settingId, ...ruleFields }).strict();
export const updateRuleBody = z.object({ id: settingId.optional(), ...ruleFields }).partial().strict();

export type RuleBody = z.infer<typeof updateRuleBody>;

/**
 * Refuses the first pattern term RE2 cannot run within the limits of ADR 0037, naming its field; and
 * the request whose terms take longer than SAVE_CHECK_MS to check (each check compiles the term).
 */
function patternChecker(): (field: string, term: string) => void {
  const started = performance.now();
  return (field, term) => {
    if (performance.now() - started > SAVE_CHECK_MS) throw fieldError(field, `checking these patterns took over ${SAVE_CHECK_MS} ms: use fewer or simpler patterns`);
    const problem = patternProblem(term);
    if (problem) throw fieldError(field, `not a usable pattern (${problem})`);
  };
}

/** Conditions numbered in order, and pattern terms that compile (checked here, so a rule never fails on send). */
export function ruleConditions(conditions: NonNullable<RuleBody['conditions']>) {
  const check = patternChecker();
  return conditions.map((condition, index) => {
    if (condition.category === 'pattern' && !condition.isKeywordsReferencePresent) {
      for (const [at, value] of condition.value.entries()) check(`conditions.${index}.value.${at}`, value);
    }
    return { ...condition, id: condition.id ?? index + 1 };
  });
}

const keywordFields = {
  name,
  description: description.optional(),
  category: z.enum(['word', 'pattern'], 'word or pattern (sentence-similarity needs a hosted model)'),
  searchTerms: terms(10_000),
  /** Set by the server when the terms came from an uploaded CSV file. */
  isCSV: z.boolean('true or false').optional(),
};

/** The terms of an uploaded CSV file: cells separated by commas or line breaks, quoted cells as RFC 4180 reads them. */
export function csvTerms(text: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',' || char === '\n' || char === '\r') {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells.map((term) => term.trim()).filter((term) => term !== '');
}

/**
 * CometChat sends keyword lists as a multipart form: text fields, or a CSV `file` of terms. A JSON
 * body is taken as it is. Parsed with the platform's own form reader (no upload is stored).
 */
export async function keywordsInput(contentType: string | undefined, body: unknown): Promise<unknown> {
  if (!Buffer.isBuffer(body)) return body ?? null;
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType ?? '' } }).formData();
  } catch {
    throw fieldError('(body)', 'not a readable multipart form');
  }
  const fields: Record<string, unknown> = {};
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') fields[field] = value;
    else if (field === 'file') {
      fields['searchTerms'] = csvTerms(await value.text());
      fields['isCSV'] = true;
    } else throw fieldError(field, 'not a file field of this form');
  }
  return fields;
}

export const createKeywordsBody = z.object({ id: settingId, ...keywordFields }).strict();
export const updateKeywordsBody = z.object({ id: settingId.optional(), ...keywordFields }).partial().strict();

export type KeywordsBody = z.infer<typeof updateKeywordsBody>;

/** A pattern list costs a compiled expression per term on every replica: fewer than a word list's 10,000. */
const MAX_PATTERN_LIST_TERMS = 500;

export function checkedTerms(body: KeywordsBody, category: 'word' | 'pattern'): void {
  if (category !== 'pattern') return;
  if ((body.searchTerms?.length ?? 0) > MAX_PATTERN_LIST_TERMS) throw fieldError('searchTerms', `at most ${MAX_PATTERN_LIST_TERMS} terms in a pattern list`);
  const check = patternChecker();
  for (const [at, value] of (body.searchTerms ?? []).entries()) check(`searchTerms.${at}`, value);
}

export const createReasonBody = z.object({ id: settingId, name, description: description.optional() }).strict();
export const updateReasonBody = z
  .object({ name: name.optional(), description: description.optional() })
  .strict()
  .refine((body) => body.name !== undefined || body.description !== undefined, 'name or description is needed');

export const flagBody = z.object({ reasonId: settingId, remark: z.string('a string').max(1000, 'at most 1000 characters').optional() }).strict();
export const reviewFlaggedBody = z.object({ status: z.enum(['approved', 'disapproved'], 'approved or disapproved') }).strict();
export const reviewBlockedBody = z.object({ status: z.enum(['approved', 'rejected'], 'approved or rejected'), reviewed: z.boolean('true or false').optional() }).strict();

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'a header name');
/** Headers sent with every run: never the platform's identity headers, hop-by-hop headers or broken values (ADR 0038). */
const agentHeaders = z.record(headerName, z.string().max(4096), 'an object of header values').superRefine((headers, context) => {
  for (const [header, value] of Object.entries(headers)) {
    const refusal = tenantHeaderRefusal(header, value);
    if (refusal) context.addIssue({ code: 'custom', path: [header], message: `${header} ${refusal}` });
  }
});
const agentUrl = z.string('a URL').max(2048, 'at most 2048 characters');

const agentFields = {
  name,
  icon: z.string('a URL').url('a URL').max(2048).optional(),
  isActive: z.boolean('true or false').optional(),
  integrateWith: z.literal('ag-ui', 'ag-ui (this deployment reaches agents over AG-UI)'),
  integrationType: z.literal('agent', 'agent'),
  integrationMeta: z.object({ url: agentUrl, headers: agentHeaders.optional() }).strict(),
  tools: z.array(z.string().max(64), 'a list of tool names').max(50).optional(),
  actions: z.array(z.string().max(64), 'a list of action names').max(50).optional(),
  metaData: z.record(z.string(), z.unknown(), 'an object').optional(),
};

export const createAgentBody = z.object({ uid: z.string('a uid').trim().max(100), ...agentFields }).strict();
export const updateAgentBody = z.object(agentFields).partial().strict();

/**
 * An agent's URL goes through the tenant URL guard (http(s) only, no internal address in any
 * spelling unless `TENANT_URLS_ALLOW_PRIVATE` allows it): a refusal has its own code and stores nothing.
 */
export function checkedAgentUrl(url: string | undefined, policy: PrivateAddressPolicy): string | undefined {
  if (url === undefined) return undefined;
  const refusal = urlRefusal(url, policy);
  if (refusal) throw new ApiError('ERR_AGENT_URL_NOT_ALLOWED', `integrationMeta.url: ${refusal}.`, { fields: [{ field: 'integrationMeta.url', problem: refusal }] });
  return url;
}

export function agentUid(raw: string): string {
  const uid = normalizeUid(raw);
  if (!isUid(uid)) throw fieldError('uid', 'a uid: at most 100 characters of a-z, 0-9, "-" and "_"');
  return uid;
}

const toolFields = {
  displayName: name,
  executionText: z.string('a string').max(200, 'at most 200 characters'),
  description: description.optional(),
  doNotExecute: z.boolean('true or false').optional(),
  parameters: z.record(z.string(), z.unknown(), 'a JSON schema object').optional(),
};

export const createToolBody = z.object({ name: z.string('a string').regex(/^[a-zA-Z_$][a-zA-Z0-9_$-]{0,63}$/, 'a function name (a letter, "_" or "$" first)'), ...toolFields }).strict();
export const updateToolBody = z.object(toolFields).partial().strict();

/** The page parameters of every moderation and agent list (`limit` is CometChat's name for `perPage` here). */
export const settingsPageQuery = z
  .object({
    limit: z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(1000, 'at most 1000').optional(),
    perPage: z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(1000, 'at most 1000').optional(),
    page: z.coerce.number('a number').int('an integer').min(1, 'at least 1').max(1_000_000).default(1),
    cursor: cursorParameter,
  })
  .strict();

export function fieldError(field: string, problem: string): ApiError {
  return new ApiError('ERR_BAD_REQUEST', `${field}: ${problem}`, { fields: [{ field, problem }] });
}
