import { hash } from 'node:crypto';
import type { Response } from 'express';

export interface SelfContainedPage {
  html: string;
  /** Allows exactly the page's style and script (by hash) and requests to its own origin. */
  contentSecurityPolicy: string;
}

const digest = (text: string) => `sha256-${hash('sha256', text, 'base64')}`;

function page(title: string, style: string, body: string, scriptTag: string, scriptDigest: string): SelfContainedPage {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${style}</style>
</head>
<body>
${body}
${scriptTag}
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src '${scriptDigest}'`,
    `style-src '${digest(style)}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}

/**
 * The frame of the gateway's own pages: self-contained HTML (no CDN, so they work on a closed
 * network), one stylesheet and one script inline. Both are fixed at start, so their hashes go in the
 * policy: an injected script or style (or one a bug lets through `innerHTML`) does not run.
 */
export function selfContainedPage(title: string, style: string, body: string, script: string): SelfContainedPage {
  const fullScript = `
const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
${script}
`;
  return page(title, style, body, `<script>${fullScript}</script>`, digest(fullScript));
}

/**
 * A page whose script is too big to inline (a bundle), served by the gateway at `src`: the same
 * policy, the script allowed by its hash, which the tag carries as `integrity` (a hash source matches
 * an external script only through it, CSP 3), so no other script of this origin runs on the page.
 */
export function pageWithScriptFile(title: string, style: string, body: string, script: { src: string; source: string }): SelfContainedPage {
  const integrity = digest(script.source);
  return page(title, style, body, `<script type="module" src="${script.src}" integrity="${integrity}"></script>`, integrity);
}

/** The page, with headers that let it run only its own style and script, never inside a frame. */
export function sendPage(res: Response, page: SelfContainedPage): void {
  res.set({
    'content-security-policy': page.contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  res.type('html').send(page.html);
}
