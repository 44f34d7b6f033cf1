import { selfContainedPage } from './pageShell.js';

/**
 * The API reference page: self-contained (no CDN, so it works on a closed network), it reads
 * /openapi.json and lists every operation by service with its path, scope, parameters and body schema.
 */
export const DOCS_PAGE = selfContainedPage(
  'Chat platform API',
  `
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1rem 2rem; color: #1d2330; }
  h1 { font-size: 1.5rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #d8dce4; text-transform: capitalize; }
  details { border: 1px solid #d8dce4; border-radius: 6px; margin: .4rem 0; padding: .3rem .6rem; }
  summary { cursor: pointer; font-family: ui-monospace, monospace; }
  .method { display: inline-block; width: 4.5rem; font-weight: 700; }
  .get { color: #1668c1; } .post { color: #1a7f37; } .put { color: #9a6700; } .delete { color: #cf222e; } .patch { color: #8250df; }
  .scope { float: right; font-size: .8rem; color: #57606a; }
  pre { background: #f6f8fa; padding: .6rem; overflow: auto; font-size: 12px; }
  table { border-collapse: collapse; } td, th { text-align: left; padding: .15rem .8rem .15rem 0; }
`,
  `<h1 id="title">Chat platform API</h1>
<p id="summary">Loading <a href="/openapi.json">/openapi.json</a>…</p>
<div id="operations"></div>
`,
  `fetch('/openapi.json').then((r) => r.json()).then((doc) => {
  document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
  const byTag = {};
  let count = 0;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      (byTag[op.tags[0]] ??= []).push({ path, method, op });
      count++;
    }
  }
  document.getElementById('summary').innerHTML = count + ' operations, OpenAPI ' + esc(doc.openapi) + ' — <a href="/openapi.json">/openapi.json</a>';
  let html = '';
  for (const tag of Object.keys(byTag).sort()) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of byTag[tag]) {
      const params = (op.parameters || []).map((p) => '<tr><td>' + esc(p.name) + '</td><td>' + esc(p.in) + '</td><td>' + (p.required ? 'required' : '') + '</td></tr>').join('');
      const body = op.requestBody ? '<pre>' + esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)) + '</pre>' : '';
      html += '<details data-operation="' + esc(op.operationId) + '"><summary><span class="method ' + method + '">' + method.toUpperCase() + '</span>' + esc(path) +
        '<span class="scope">' + esc(op['x-required-scope']) + ' · ' + esc(op.operationId) + '</span></summary>' +
        (params ? '<table><tr><th>parameter</th><th>in</th><th></th></tr>' + params + '</table>' : '') + body + '</details>';
    }
  }
  document.getElementById('operations').innerHTML = html;
}, (error) => { document.getElementById('summary').textContent = 'Could not load /openapi.json: ' + error; });
`,
);
