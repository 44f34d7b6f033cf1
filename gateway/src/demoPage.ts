import type { Express } from 'express';
import { pageWithScriptFile, sendPage } from './pageShell.js';

/** The demo chat page (ADR 0080) and its script, the bundle of gateway/demo/ (`@chat/client` inside). */
export const DEMO_PATHS = { page: '/demo', script: '/demo/app.js' } as const;

const STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f4f6fa; }
  header { background: #1d2330; color: #fff; padding: .7rem 1.5rem; display: flex; gap: 1rem; align-items: center; }
  header h1 { font-size: 1.1rem; margin: 0; } #status { margin-left: auto; font-size: 12px; }
  #login { display: flex; gap: .6rem; padding: 1rem 1.5rem; align-items: end; } #login label { display: grid; font-size: 12px; }
  #chat { display: grid; grid-template-columns: 18rem 1fr; gap: 1rem; padding: 1rem 1.5rem; height: calc(100vh - 6rem); box-sizing: border-box; }
  #chat[hidden], #login[hidden], form[hidden] { display: none; }
  aside, section { background: #fff; border: 1px solid #d8dce4; border-radius: 8px; padding: .6rem; display: flex; flex-direction: column; min-height: 0; }
  #new-chat { display: flex; gap: .3rem; } #new-chat input { flex: 1; min-width: 0; }
  ul, ol { list-style: none; margin: .5rem 0 0; padding: 0; overflow: auto; }
  .conversation { display: flex; gap: .5rem; align-items: center; padding: .45rem .5rem; border-radius: 6px; cursor: pointer; }
  .conversation:hover { background: #eef0f4; } .conversation.open { background: #dbe7fb; }
  .name { flex: 1; } .unread:not(:empty) { background: #3b82f6; color: #fff; border-radius: 9px; padding: 0 .45rem; font-size: 12px; }
  .dot { width: .6rem; height: .6rem; border-radius: 50%; display: inline-block; background: #b4bac6; flex: none; margin-right: .3rem; }
  .dot.online { background: #22c55e; }
  #title { font-size: 1rem; margin: .2rem 0 .4rem; display: flex; align-items: center; min-height: 1.4rem; }
  #messages { flex: 1; display: flex; flex-direction: column; gap: .3rem; }
  .message { max-width: 70%; padding: .35rem .6rem; border-radius: 10px; background: #eef0f4; align-self: flex-start; }
  .message.mine { background: #3b82f6; color: #fff; align-self: flex-end; }
  .sender { display: block; font-size: 11px; color: #57606a; }
  .tick { margin-left: .5rem; font-size: 11px; opacity: .75; } .tick[data-state="read"] { color: #a7f3d0; opacity: 1; font-weight: 700; }
  #typing { min-height: 1.2rem; margin: .3rem 0; font-size: 12px; font-style: italic; color: #57606a; }
  #send { display: flex; gap: .4rem; } #send input { flex: 1; }
`;

const BODY = `<header><h1>Chat demo</h1><span id="me"></span><span id="status">signed out</span></header>
<form id="login">
  <label>App ID <input id="app-id" required autocomplete="off"></label>
  <label>UID <input id="uid" required autocomplete="off"></label>
  <label>Auth token <input id="auth-token" type="password" required autocomplete="off"></label>
  <button>Sign in</button>
</form>
<main id="chat" hidden>
  <aside>
    <form id="new-chat"><select id="peer-type"><option value="user">user</option><option value="group">group</option></select><input id="peer" placeholder="uid or guid" autocomplete="off"><button>Open</button></form>
    <ul id="conversations"></ul>
  </aside>
  <section>
    <h2 id="title">Pick a conversation</h2>
    <ol id="messages"></ol>
    <p id="typing"></p>
    <form id="send" hidden><input id="text" placeholder="Message" autocomplete="off"><button>Send</button></form>
  </section>
</main>
`;

const notBuilt = JSON.stringify({
  error: { code: 'ERR_API_NOT_FOUND', message: "This gateway was built without the demo page's script (node gateway/demo/bundle.mjs)." },
});

/**
 * `/demo` and its script, when the gateway has the bundle (read at start by main.ts). The page allows
 * only that script by its hash; the script is served with a JavaScript type and `nosniff`, and always
 * revalidated, so a page never meets a script its `integrity` does not match for long.
 */
export function demoRoutes(app: Express, script: string | undefined): void {
  if (script === undefined) {
    for (const path of Object.values(DEMO_PATHS)) app.get(path, (_req, res) => void res.status(404).type('application/json').send(notBuilt));
    return;
  }
  const page = pageWithScriptFile('Chat demo', STYLE, BODY, { src: DEMO_PATHS.script, source: script });
  app.get(DEMO_PATHS.page, (_req, res) => sendPage(res, page));
  app.get(DEMO_PATHS.script, (_req, res) => {
    res.set({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' });
    res.type('text/javascript').send(script);
  });
}
