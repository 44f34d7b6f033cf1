import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Probes } from '@chat/http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PATHS } from './demoPage.js';
import { OWN_PATHS, answersOwnPath, ownRoutesApp } from './ownRoutes.js';
import { parseHost } from './tenancy.js';

const SCRIPT = 'console.log("demo");\n';
const servers: ReturnType<typeof createServer>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(script: string | undefined): Promise<string> {
  const server = createServer(ownRoutesApp(new Probes(), undefined, script));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the demo page', () => {
  it('is the gateway’s own page on the plain and management hosts, never on a tenant’s', () => {
    for (const path of Object.values(DEMO_PATHS)) {
      expect(OWN_PATHS.has(path)).toBe(true);
      expect(answersOwnPath(path, parseHost('localhost:3000', 'chat.example.com', 'us'), false)).toBe(true);
      expect(answersOwnPath(path, parseHost('app1.api-us.chat.example.com', 'chat.example.com', 'us'), false)).toBe(false);
    }
  });

  it('loads its script from the gateway, allowed by the script’s hash only', async () => {
    const base = await serve(SCRIPT);
    const page = await fetch(`${base}${DEMO_PATHS.page}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const integrity = `sha256-${createHash('sha256').update(SCRIPT).digest('base64')}`;
    expect(html).toContain(`<script type="module" src="${DEMO_PATHS.script}" integrity="${integrity}"></script>`);
    // One script, no inline code or handlers: only the file whose hash the policy names runs.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/\son[a-z]+=|\sstyle=/);
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    const policy = Object.fromEntries(page.headers.get('content-security-policy')!.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(policy).toEqual({
      'default-src': "'none'",
      'script-src': `'${integrity}'`,
      'style-src': `'sha256-${createHash('sha256').update(style).digest('base64')}'`,
      'connect-src': "'self'",
      'img-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(page.headers.get('x-frame-options')).toBe('DENY');

    const script = await fetch(`${base}${DEMO_PATHS.script}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await script.text()).toBe(SCRIPT);
  });

  it('answers 404 in CometChat’s shape when the gateway was built without the bundle', async () => {
    const base = await serve(undefined);
    for (const path of Object.values(DEMO_PATHS)) {
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ERR_API_NOT_FOUND');
    }
  });
});
