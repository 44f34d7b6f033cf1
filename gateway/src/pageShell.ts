import { hash } from 'node:crypto';

export interface SelfContainedPage {
  html: string;
  /** Allows exactly the page's inline style and script (by hash) and requests to its own origin. */
  contentSecurityPolicy: string;
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
<script>${fullScript}</script>
</body>
</html>
`;
  const digest = (text: string) => `'sha256-${hash('sha256', text, 'base64')}'`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${digest(fullScript)}`,
    `style-src ${digest(style)}`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}
