import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGE } from './consolePage.js';
import { DOCS_PAGE } from './docsPage.js';
import { answersOwnPath } from './ownRoutes.js';
import { parseHost } from './tenancy.js';

const host = (name: string) => parseHost(name, 'chat.example.com', 'us');

describe('answersOwnPath', () => {
  const operators = ['/readyz', '/metrics', '/console', '/docs', '/openapi.json'];

  it('answers liveness on every host, the operators’ paths never on a tenant’s host', () => {
    for (const tenant of [host('app1.api-us.chat.example.com'), host('app1.call-us.chat.example.com')]) {
      expect(answersOwnPath('/healthz', tenant, false)).toBe(true);
      for (const path of operators) expect(answersOwnPath(path, tenant, false), path).toBe(false);
    }
    for (const operatorHost of [host('apimgmt.chat.example.com'), host('10.1.2.3:3000'), host(undefined as unknown as string)]) {
      for (const path of operators) expect(answersOwnPath(path, operatorHost, false), path).toBe(true);
    }
  });

  it('leaves readiness and metrics to the admin port once there is one', () => {
    const plain = host('10.1.2.3:3000');
    expect(answersOwnPath('/readyz', plain, true)).toBe(false);
    expect(answersOwnPath('/metrics', plain, true)).toBe(false);
    expect(answersOwnPath('/console', plain, true)).toBe(true);
    expect(answersOwnPath('/healthz', plain, true)).toBe(true);
  });
});

describe('the pages’ Content-Security-Policy', () => {
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

  it.each([
    ['console', CONSOLE_PAGE],
    ['docs', DOCS_PAGE],
  ])('%s: allows exactly its own inline script and style, no frames, no other origin', (_name, page) => {
    const script = /<script>([\s\S]*)<\/script>/.exec(page.html)![1]!;
    const style = /<style>([\s\S]*)<\/style>/.exec(page.html)![1]!;
    const policy = Object.fromEntries(page.contentSecurityPolicy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(policy).toEqual({
      'default-src': "'none'",
      'script-src': sha256(script),
      'style-src': sha256(style),
      'connect-src': "'self'",
      'img-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    // Nothing the hashes do not cover: no inline handlers or style attributes, no second script.
    expect(page.html).not.toMatch(/\son[a-z]+=|\sstyle=|<script[^>]*src=/);
    expect(page.html.match(/<script/g)).toHaveLength(1);
  });
});
