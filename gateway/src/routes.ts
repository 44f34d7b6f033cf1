import { CHAT_API_PREFIX } from '@chat/contracts';
import type { RouteSpec } from '@chat/contracts';

interface TrieNode {
  statics: Map<string, TrieNode>;
  param: TrieNode | undefined;
  route: RouteSpec | undefined;
}

const newNode = (): TrieNode => ({ statics: new Map(), param: undefined, route: undefined });

/** The path a client uses: chat routes live under `/v3`, management routes at the root. */
export function externalPath(route: RouteSpec): string {
  return route.api === 'chat' ? `${CHAT_API_PREFIX}${route.path}` : route.path;
}

/**
 * The route catalog as one segment trie per method: a lookup costs one map probe per path segment,
 * whatever the number of routes. A static segment wins over a `:param` at the same position
 * (`/conversations/pinned` before `/conversations/:id`), with backtracking if the static branch
 * leads nowhere.
 */
export class RouteTable {
  private readonly roots = new Map<string, TrieNode>();

  constructor(routes: readonly RouteSpec[]) {
    for (const route of routes) this.add(route);
  }

  private add(route: RouteSpec): void {
    let node = this.roots.get(route.method);
    if (!node) this.roots.set(route.method, (node = newNode()));
    for (const segment of externalPath(route).split('/').slice(1)) {
      if (segment.startsWith(':')) node = node.param ??= newNode();
      else {
        let child = node.statics.get(segment);
        if (!child) node.statics.set(segment, (child = newNode()));
        node = child;
      }
    }
    if (node.route) throw new Error(`route ${route.method} ${externalPath(route)} is declared twice`);
    node.route = route;
  }

  /**
   * `path` without the query string. One trailing slash is tolerated (the services' routers do the
   * same); empty, `.` and `..` segments never match, so the gateway and a service can never disagree
   * about which operation a path names.
   */
  match(method: string, path: string): RouteSpec | undefined {
    const root = this.roots.get(method);
    if (!root || path.length < 2 || path.charCodeAt(0) !== 47 /* / */) return undefined;
    const end = path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
    return walk(root, path, 1, end);
  }
}

function walk(node: TrieNode, path: string, start: number, end: number): RouteSpec | undefined {
  let stop = path.indexOf('/', start);
  if (stop === -1 || stop > end) stop = end;
  const segment = path.slice(start, stop);
  if (segment.length === 0 || segment === '.' || segment === '..') return undefined;
  const last = stop === end;
  const child = node.statics.get(segment);
  if (child) {
    const found = last ? child.route : walk(child, path, stop + 1, end);
    if (found) return found;
  }
  if (!node.param) return undefined;
  return last ? node.param.route : walk(node.param, path, stop + 1, end);
}
