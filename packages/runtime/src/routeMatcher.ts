import { CHAT_API_PREFIX, routeCatalog } from '@chat/contracts';
import { escapeRegex } from '@chat/mongo';

/** Tells the requests of the given operations (by the route catalogue's method and path) from the rest. */
export function routeMatcher(operationIds: readonly string[]): (method: string, url: string) => boolean {
  const routes = routeCatalog
    .filter((route) => operationIds.includes(route.operationId))
    .map((route) => {
      const prefix = route.api === 'chat' ? CHAT_API_PREFIX : '';
      const pattern = escapeRegex(`${prefix}${route.path}`).replace(/:[A-Za-z]+/g, '[^/]+');
      return { method: route.method, path: new RegExp(`^${pattern}$`) };
    });
  if (routes.length !== operationIds.length) throw new Error(`unknown operations among ${operationIds.join(', ')}`);
  return (method, url) => {
    const path = url.split('?', 1)[0] ?? '';
    return routes.some((route) => route.method === method && route.path.test(path));
  };
}
