/**
 * The frame of the gateway's own pages: self-contained HTML (no CDN, so they work on a closed
 * network), one stylesheet and one script inline.
 */
export function selfContainedPage(title: string, style: string, body: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${style}</style>
</head>
<body>
${body}
<script>
const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
${script}
</script>
</body>
</html>
`;
}
