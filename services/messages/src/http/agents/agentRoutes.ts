import { ApiError } from '@chat/contracts';
import type { Agent, AgentTool } from '@chat/contracts';
import type { PrivateAddressPolicy } from '@chat/delivery';
import { parseWith } from '@chat/http';
import { Router } from 'express';
import type { ModerationSettingsApp } from '../../app/moderation/moderationSettings.js';
import { agentUid, checkedAgentUrl, createAgentBody, createToolBody, updateAgentBody, updateToolBody } from '../moderation/moderationSchemas.js';
import { settingsPage } from '../moderation/moderationRoutes.js';
import { requestContextOf } from '../requestContext.js';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Header values are credentials: shown by name only, never returned. */
function agentView(appId: string, agent: Agent) {
  const headers = Object.fromEntries(Object.keys(agent.integrationMeta.headers).map((name) => [name, '********']));
  return {
    uid: agent.uid,
    appId,
    name: agent.name,
    ...(agent.icon !== undefined ? { icon: agent.icon } : {}),
    isActive: agent.isActive,
    integrateWith: agent.integrateWith,
    integrationType: agent.integrationType,
    integrationMeta: { url: agent.integrationMeta.url, headers },
    tools: agent.tools,
    actions: agent.actions,
    metaData: agent.metaData,
    deletedAt: null,
    createdAt: iso(agent.createdAt),
    updatedAt: iso(agent.updatedAt),
  };
}

function toolView(appId: string, tool: AgentTool) {
  return {
    _id: `${appId}_${tool.name}`,
    appId,
    name: tool.name,
    type: 'action',
    displayName: tool.displayName,
    executionText: tool.executionText,
    doNotExecute: tool.doNotExecute,
    tool: { name: tool.name, description: tool.description, parameters: tool.parameters },
    createdAt: iso(tool.createdAt),
    updatedAt: iso(tool.updatedAt),
  };
}

/** The agent fields as stored: `integrationMeta` complete (headers default to none), URL checked. */
function agentFields(body: ReturnType<typeof updateAgentBody.parse>, tenantUrls: PrivateAddressPolicy): Partial<Agent> {
  const { integrationMeta, ...rest } = body;
  if (!integrationMeta) return rest;
  return { ...rest, integrationMeta: { url: checkedAgentUrl(integrationMeta.url, tenantUrls) ?? '', headers: integrationMeta.headers ?? {} } };
}

/** What a caller may integrate with here: AG-UI agents only (the native Agent Builder needs a hosted model). */
const integrations = [
  {
    id: 'ag-ui',
    name: 'AG-UI',
    integrationType: 'agent',
    description: 'Any agent that takes an AG-UI RunAgentInput by POST and streams its answer as server-sent events.',
    integrationMeta: { url: 'required: the agent’s http(s) endpoint', headers: 'optional: headers sent with every run' },
  },
];

/** BYO AI agents (`/ai-agents/…`): agents, their tools, and the integrations this deployment offers. */
export function agentsRouter(settings: ModerationSettingsApp, tenantUrls: PrivateAddressPolicy): Router {
  const router = Router();

  router.post('/v3/ai-agents/agents', async (req, res) => {
    const context = requestContextOf(req);
    const { uid, ...body } = parseWith(createAgentBody, req.body ?? null);
    const agent = await settings.save(context, 'agent', 'create', agentUid(uid), agentFields(body, tenantUrls));
    res.status(201).json({ agent: agentView(context.actor.appId, agent) });
  });

  router.get('/v3/ai-agents/agents', async (req, res) => {
    const context = requestContextOf(req);
    const { items, meta } = settingsPage(req, 'list-byo-agents', (await settings.settings(context)).agents, (a) => a.uid);
    res.json({ data: items.map((agent) => agentView(context.actor.appId, agent)), meta });
  });

  router.patch('/v3/ai-agents/agents/:uid', async (req, res) => {
    const fields = agentFields(parseWith(updateAgentBody, req.body ?? null), tenantUrls);
    await settings.save(requestContextOf(req), 'agent', 'update', String(req.params['uid'] ?? ''), fields);
    res.json({ success: true });
  });

  router.delete('/v3/ai-agents/agents/:uid', async (req, res) => {
    await settings.remove(requestContextOf(req), 'agent', String(req.params['uid'] ?? ''));
    res.json({ success: true });
  });

  router.post('/v3/ai-agents/tools', async (req, res) => {
    const context = requestContextOf(req);
    const { name, ...fields } = parseWith(createToolBody, req.body ?? null);
    res.status(201).json(toolView(context.actor.appId, await settings.save(context, 'tool', 'create', name, fields)));
  });

  router.get('/v3/ai-agents/tools', async (req, res) => {
    const context = requestContextOf(req);
    const { items, meta } = settingsPage(req, 'list-tools', (await settings.settings(context)).tools, (t) => t.name);
    res.json({ data: items.map((tool) => toolView(context.actor.appId, tool)), meta });
  });

  router.get('/v3/ai-agents/tools/:name', async (req, res) => {
    const context = requestContextOf(req);
    const name = String(req.params['name'] ?? '');
    const tool = (await settings.settings(context)).tools.find((t) => t.name === name);
    if (!tool) throw new ApiError('ERR_TOOL_NOT_FOUND', `No tool is named ${name}.`);
    res.json(toolView(context.actor.appId, tool));
  });

  router.patch('/v3/ai-agents/tools/:name', async (req, res) => {
    const context = requestContextOf(req);
    const fields = parseWith(updateToolBody, req.body ?? null);
    res.json(toolView(context.actor.appId, await settings.save(context, 'tool', 'update', String(req.params['name'] ?? ''), fields)));
  });

  router.delete('/v3/ai-agents/tools/:name', async (req, res) => {
    await settings.remove(requestContextOf(req), 'tool', String(req.params['name'] ?? ''));
    res.json({ success: true });
  });

  router.get('/v3/ai-agents/integrations', (_req, res) => {
    res.json({ data: integrations });
  });

  return router;
}
