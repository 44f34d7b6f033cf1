// What the differences report compares of an OpenAPI document: per operationId its method, path,
// parameter names and the top-level properties of its JSON body. Shared by scripts/cometchat-index.mjs
// (which extracts it from CometChat's files) and scripts/openapi-differences.mjs.

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of a document: operationId → { method, path, query, headers, body } (names sorted). */
export function operationsOf(document, pathPrefix) {
  const resolve = (node) => {
    if (!node?.$ref) return node;
    return node.$ref.replace(/^#\//, '').split('/').reduce((at, key) => at?.[key], document);
  };
  const operations = new Map();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve).filter(Boolean);
      const named = (where) => [...new Set(parameters.filter((p) => p.in === where).map((p) => p.name.toLowerCase()))].sort();
      const body = resolve(operation.requestBody?.content?.['application/json']?.schema);
      operations.set(operation.operationId, {
        method: method.toUpperCase(),
        path: `${pathPrefix}${path}`,
        query: named('query'),
        headers: named('header'),
        body: Object.keys(body?.properties ?? {}).sort(),
      });
    }
  }
  return operations;
}
