// What a V8 heap snapshot (the JSON of `HeapProfiler.takeHeapSnapshot` or a `.heapsnapshot` file) keeps alive, cut
// for a reader: the self size by constructor, and the objects that retain most (their dominator subtree), each named
// by its constructor and the path of property names from the heap's roots. The retained sizes come from the
// snapshot's dominator tree (Cooper, Harvey and Kennedy's iterative algorithm over a reverse post-order), with weak
// edges left out as DevTools leaves them out.
//
//   node bench/heapSnapshotSummary.mjs <file.heapsnapshot> [top]

/**
 * @param {string} text  the snapshot's JSON
 * @param {number} [top]  how many constructors and retainers to list
 * @param {string[]} [classes]  constructors whose every instance is listed with its retained size and path (e.g. a cache's class)
 */
export function summarizeHeapSnapshot(text, top = 25, classes = ['RecentlyUsed']) {
  const snapshot = JSON.parse(text);
  const meta = snapshot.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const [nodeType, nodeName, nodeSelf, nodeEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
  const [edgeType, edgeName, edgeTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
  const { nodes, edges, strings } = snapshot;
  const count = nodes.length / nodeFields;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * nodeFields + nodeEdges] * edgeFields;
    firstEdge[i + 1] = e;
  }
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const target = (e) => edges[e + edgeTo] / nodeFields;
  const strong = (e) => edges[e + edgeType] !== weak && edges[e + edgeType] !== shortcut;

  // Reverse post-order from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1);
  const postOrder = new Uint32Array(count);
  let visited = 0;
  const stack = [0];
  const cursor = new Uint32Array(count);
  order[0] = -2;
  for (let i = 0; i < count; i++) cursor[i] = firstEdge[i];
  while (stack.length) {
    const n = stack[stack.length - 1];
    let pushed = false;
    while (cursor[n] < firstEdge[n + 1]) {
      const e = cursor[n];
      cursor[n] += edgeFields;
      if (!strong(e)) continue;
      const t = target(e);
      if (order[t] !== -1) continue;
      order[t] = -2;
      stack.push(t);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[n] = visited;
      postOrder[visited++] = n;
    }
  }
  // Predecessors (strong edges between reachable nodes), in post-order numbering.
  const predCount = new Uint32Array(visited + 1);
  for (let n = 0; n < count; n++) {
    if (order[n] < 0) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += edgeFields) if (strong(e) && order[target(e)] >= 0) predCount[order[target(e)] + 1]++;
  }
  for (let i = 0; i < visited; i++) predCount[i + 1] += predCount[i];
  const preds = new Uint32Array(predCount[visited]);
  const fill = predCount.slice();
  for (let n = 0; n < count; n++) {
    if (order[n] < 0) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += edgeFields) {
      if (!strong(e) || order[target(e)] < 0) continue;
      preds[fill[order[target(e)]]++] = order[n];
    }
  }
  const root = visited - 1;
  const dom = new Int32Array(visited).fill(-1);
  dom[root] = root;
  for (let changed = true; changed; ) {
    changed = false;
    for (let b = root - 1; b >= 0; b--) {
      let idom = -1;
      for (let p = predCount[b]; p < predCount[b + 1]; p++) {
        let q = preds[p];
        if (dom[q] === -1) continue;
        if (idom === -1) { idom = q; continue; }
        let a = q;
        let c = idom;
        while (a !== c) {
          while (a < c) a = dom[a];
          while (c < a) c = dom[c];
        }
        idom = a;
      }
      if (idom !== -1 && dom[b] !== idom) { dom[b] = idom; changed = true; }
    }
  }
  const retained = new Float64Array(visited);
  for (let b = 0; b < visited; b++) retained[b] = nodes[postOrder[b] * nodeFields + nodeSelf];
  for (let b = 0; b < root; b++) if (dom[b] >= 0 && dom[b] !== b) retained[dom[b]] += retained[b];

  const typeOf = (n) => nodeTypes[nodes[n * nodeFields + nodeType]];
  const nameOf = (n) => strings[nodes[n * nodeFields + nodeName]];
  const label = (n) => (typeOf(n) === 'object' || typeOf(n) === 'closure' ? nameOf(n) : `(${typeOf(n)})`);
  /** The edge name from the node's dominator to it, where the dominator holds it directly. */
  const edgeLabel = (from, to) => {
    for (let e = firstEdge[from]; e < firstEdge[from + 1]; e += edgeFields) {
      if (target(e) !== to) continue;
      const kind = edgeTypes[edges[e + edgeType]];
      return kind === 'element' || kind === 'hidden' ? `[${edges[e + edgeName]}]` : String(strings[edges[e + edgeName]]);
    }
    return '…';
  };
  const pathOf = (b) => {
    const parts = [];
    for (let x = b, depth = 0; x !== root && depth < 8; x = dom[x], depth++) parts.push(`${label(postOrder[x])}${dom[x] === root ? '' : `.${edgeLabel(postOrder[dom[x]], postOrder[x])}`}`);
    return parts.reverse().join(' ← ');
  };

  let total = 0;
  const byConstructor = new Map();
  for (let b = 0; b < visited; b++) {
    const n = postOrder[b];
    const self = nodes[n * nodeFields + nodeSelf];
    total += self;
    const key = label(n);
    const entry = byConstructor.get(key) ?? { count: 0, self: 0 };
    entry.count++;
    entry.self += self;
    byConstructor.set(key, entry);
  }
  // The largest retainers that are objects of a named constructor and not a framework's plumbing, skipping one
  // that only wraps the next (a retained size within 2 % of its dominated child's).
  const candidates = [];
  for (let b = 0; b < root; b++) {
    const n = postOrder[b];
    if (typeOf(n) !== 'object' || retained[b] < total / 200) continue;
    candidates.push(b);
  }
  candidates.sort((a, c) => retained[c] - retained[a]);
  const instances = [];
  for (let b = 0; b < root; b++) {
    const n = postOrder[b];
    if (typeOf(n) === 'object' && classes.includes(nameOf(n))) instances.push({ name: nameOf(n), retained: retained[b], path: pathOf(b) });
  }
  instances.sort((a, c) => c.retained - a.retained);
  return {
    total,
    instances,
    constructors: [...byConstructor.entries()].sort((a, c) => c[1].self - a[1].self).slice(0, top),
    retainers: candidates.slice(0, top).map((b) => ({ name: label(postOrder[b]), retained: retained[b], path: pathOf(b) })),
  };
}

/** Prints a summary as summarizeHeapSnapshot gives it. */
export function printHeapSummary(title, { total, constructors, retainers, instances }) {
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  console.log(`\n${title}: ${mb(total)} MB reachable`);
  console.log('  self size by constructor');
  for (const [name, { count, self }] of constructors) console.log(`    ${mb(self).padStart(6)} MB  ${String(count).padStart(8)} ×  ${name}`);
  console.log('  largest retainers (retained size; path from the roots by property)');
  for (const { retained, path } of retainers) console.log(`    ${mb(retained).padStart(6)} MB  ${path}`);
  if (instances.length) console.log(`  every ${[...new Set(instances.map((i) => i.name))].join(', ')} (retained size; path)`);
  for (const { retained, path } of instances.filter((i) => i.retained >= 64 * 1024)) console.log(`    ${mb(retained).padStart(6)} MB  ${path}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFile } = await import('node:fs/promises');
  const file = process.argv[2];
  if (!file) throw new Error('usage: node bench/heapSnapshotSummary.mjs <file.heapsnapshot> [top]');
  printHeapSummary(file, summarizeHeapSnapshot(await readFile(file, 'utf8'), Number(process.argv[3] ?? 25)));
}
