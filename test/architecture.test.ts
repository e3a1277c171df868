/**
 * The layering of src/, checked on every file's imports (read by test/support/import-graph.ts:
 * static, type-only, re-exports and dynamic `import('…')` alike).
 *
 * A layer is one or more top folders of src/, matched whole (src/hub/** is the hub however it is
 * divided inside); src/errors.ts is a layer of its own and the only file at the top of src/ (a
 * new loose file is in no layer and fails: give it a room). Each layer may import itself and the layers it
 * lists in LAYERS below, nothing else: a new arrow between layers is a line changed here, on
 * purpose. On top of the table: no import cycle at all (type-only imports included: a cycle of
 * types still ties two files into one unit), and no file under src/ over 500 lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { findCycles, importGraph, readImports, type Edge } from './support/import-graph.js';

type LayerName =
  | 'errors' | 'core' | 'util' | 'types'
  | 'store' | 'auth' | 'hub' | 'cluster' | 'push' | 'drives' | 'abrp' | 'alerts' | 'metrics' | 'import'
  | 'mp' | 'http' | 'mqtt' | 'cli'
  | 'module' | 'mp-client'
  | 'server';

interface Layer {
  /** What it holds, in a few words. */
  what: string;
  /** Top folders of src/ (`hub/`), top-level files (`errors.ts`), or `*.ts`: every other top-level file. */
  holds: readonly string[];
  /** The other layers it may import. */
  may: readonly LayerName[];
  /** When given, the only node built-ins (`node:x`) and packages it may import; else any. */
  outside?: readonly string[];
}

/** The layers every other one stands on. */
const BASE: readonly LayerName[] = ['core', 'errors', 'util'];
/** The adapters: each opens the hub to the world one way (MP, HTTP, MQTT, the command line), and knows no other. */
const ADAPTERS: readonly LayerName[] = ['mp', 'http', 'mqtt', 'cli'];
/** What a server-side part beyond the hub may use: never the composition (src/server/), which uses them. */
const SERVICES: readonly LayerName[] = [...BASE, 'store', 'auth', 'hub'];

const LAYERS: Record<LayerName, Layer> = {
  errors: { what: 'the error catalogue', holds: ['errors.ts'], may: [], outside: [] },
  // pure: no I/O, no package. node:crypto (hashes, HMAC, random bytes, constant-time compare) and
  // node:net (isIPv4/isIPv6) compute only
  core: { what: 'the pure domain (protocols, records, rules)', holds: ['core/'], may: ['errors'], outside: ['node:crypto', 'node:net'] },
  util: { what: 'process-wide helpers any layer but core may use (logs, audit lines, options, the listener guard, the version)', holds: ['util/'], may: ['errors'] },
  types: { what: 'declarations of untyped packages', holds: ['types/'], may: [] },

  store: { what: 'persistence (SQLite, PostgreSQL)', holds: ['store/'], may: [...BASE] },
  auth: { what: 'credentials and login checks', holds: ['auth/'], may: [...BASE, 'store'] },
  hub: { what: 'the centre (vehicles, connections, commands)', holds: ['hub/'], may: [...BASE, 'store', 'auth'] },
  cluster: { what: 'the Redis cluster behind the hub', holds: ['cluster/'], may: [...BASE, 'store', 'auth', 'hub'] },
  push: { what: 'push notifications (outbox and providers)', holds: ['push/'], may: SERVICES },
  drives: { what: 'drives and charges recorded from the car data, and rebuilt from the history', holds: ['drives/'], may: SERVICES },
  abrp: { what: 'live telemetry sent to ABRP for the linked vehicles', holds: ['abrp/'], may: SERVICES },
  // hears the finished drives of the recorder
  alerts: { what: 'the alerts the server computes from the car data', holds: ['alerts/'], may: [...SERVICES, 'drives'] },
  metrics: { what: 'Prometheus metrics', holds: ['metrics/'], may: [...BASE, 'store', 'hub'] },
  import: { what: 'vts import from a reference database', holds: ['import/'], may: [...BASE, 'store', 'auth'] },

  mp: { what: 'the MP protocol adapter (cars and apps)', holds: ['mp/'], may: SERVICES },
  http: { what: 'the HTTP adapter (APIs and web)', holds: ['http/'], may: SERVICES },
  mqtt: { what: 'the MQTT adapter (v3 modules, broker, bridge)', holds: ['mqtt/'], may: SERVICES },
  cli: {
    what: 'the command line (the server, the tools, the clients)',
    holds: ['cli/'],
    may: [...SERVICES, 'server', 'cluster', 'push', 'drives', 'abrp', 'metrics', 'import', 'module', 'mp-client'],
  },

  // the client side (the module emulator and the MP client that one of its links drives): nothing
  // of the server, only what any side shares (core, the error catalogue, util)
  module: { what: 'the OVMS module emulator', holds: ['module/'], may: [...BASE, 'mp-client'] },
  'mp-client': { what: 'an MP client (app or car side)', holds: ['mp-client/'], may: [...BASE] },

  server: { what: 'the composition, which starts and stops everything', holds: ['server/'], may: [] }, // may: every layer, below
};
LAYERS.server.may = Object.keys(LAYERS) as LayerName[];

const MAX_LINES = 500;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const graph = importGraph(ROOT, fileURLToPath(new URL('../src', import.meta.url)));

function layerOf(file: string): LayerName | undefined {
  const rel = file.replace(/^src\//, '');
  const slash = rel.indexOf('/');
  const key = slash < 0 ? rel : rel.slice(0, slash + 1);
  const names = Object.keys(LAYERS) as LayerName[];
  return names.find((n) => LAYERS[n].holds.includes(key)) ?? (slash < 0 ? names.find((n) => LAYERS[n].holds.includes('*.ts')) : undefined);
}

const where = (e: Edge): string => `${e.from}:${e.line} imports '${e.specifier}'${e.typeOnly ? ' (type-only)' : ''}`;

test('the reader sees every form of import', () => {
  const text = [
    "import a from './a.js';",
    "import type { B } from './b.js';",
    "import { type C, type D } from './c.js';",
    "import { e, type E } from './e.js';",
    "export { f } from './f.js';",
    "export type { G } from './g.js';",
    "export * from './h.js';",
    "import './i.js';",
    "type J = import('./j.js').J;",
    "const k = await import('./k.js');",
    "const l = createRequire(import.meta.url)('l-package/x.js');",
    "import n = require('./n.js');",
    "const o = require('node:o');",
    'const m = await import(name);',
  ].join('\n');
  const { imports, unreadable } = readImports('x.ts', text);
  assert.deepEqual(
    imports.map((i) => `${i.specifier}${i.typeOnly ? ' type' : ''}`),
    ['./a.js', './b.js type', './c.js type', './e.js', './f.js', './g.js type', './h.js', './i.js', './j.js type', './k.js', 'l-package/x.js', './n.js', 'node:o'],
  );
  assert.deepEqual(unreadable, [14]);
});

test('the table keeps the rules of the architecture: widen a layer, never past these', () => {
  const all = Object.keys(LAYERS) as LayerName[];
  const except = (...out: LayerName[]): LayerName[] => all.filter((n) => !out.includes(n));
  const broken: string[] = [];
  const atMost = (name: LayerName, allowed: readonly LayerName[]): void => {
    const extra = LAYERS[name].may.filter((m) => !allowed.includes(m));
    if (extra.length > 0) broken.push(`${name} may not import ${extra.join(', ')}`);
  };
  atMost('core', ['errors']); // pure
  atMost('module', [...BASE, 'mp-client']); // the client side knows the core, not the server
  atMost('mp-client', BASE);
  atMost('hub', except(...ADAPTERS, 'server')); // the adapters plug into the hub, not the reverse
  atMost('store', except('hub', ...ADAPTERS, 'server'));
  for (const a of ADAPTERS) atMost(a, except(...ADAPTERS.filter((b) => b !== a))); // no adapter knows another
  assert.deepEqual(broken, []);
});

test('every file under src/ is in a layer, and every import can be followed', () => {
  assert.ok(graph.files.length > 100 && graph.edges.length > 500, 'the reader found too little: is it still reading src/?');
  const problems = [
    ...graph.files.filter((f) => !layerOf(f)).map((f) => `${f} is in no layer: give its folder a line in LAYERS`),
    ...graph.edges.filter((e) => e.kind === 'unresolved').map((e) => `${where(e)}: no such file`),
    ...graph.edges.filter((e) => e.kind === 'file' && !e.to.startsWith('src/')).map((e) => `${where(e)}: outside src/`),
    ...graph.unreadable.map((at) => `${at}: an import or require of a computed name, which this test cannot follow`),
  ];
  assert.deepEqual(problems, []);
});

test('no import cycle, type-only imports included', () => {
  // each step is `file:line` of the import that leads to the next file
  const cycles = findCycles(graph).map(({ path, files }) => {
    const steps = path.map((e) => `${e.from}:${e.line}${e.typeOnly ? ' -type->' : ' ->'} `).join('') + path[0]!.from;
    const more = files.filter((f) => !path.some((e) => e.from === f));
    return more.length > 0 ? `${steps} (tied up with it too: ${more.join(', ')})` : steps;
  });
  assert.deepEqual(cycles, [], `${cycles.length} import cycle(s); break each (a shared file both sides import):\n${cycles.join('\n')}`);
});

for (const name of Object.keys(LAYERS) as LayerName[]) {
  const layer = LAYERS[name];
  if (name === 'server') continue; // it may import every layer
  const allowed = new Set<LayerName>([name, ...layer.may]);
  const outside = layer.outside ? ` and ${layer.outside.length > 0 ? layer.outside.join(', ') : 'nothing outside src/'}` : '';
  test(`${name}: ${layer.what}; imports only ${[...allowed].join(', ')}${outside}`, () => {
    const problems: string[] = [];
    for (const e of graph.edges) {
      if (layerOf(e.from) !== name) continue;
      if (e.kind === 'file') {
        const target = layerOf(e.to);
        if (target && !allowed.has(target)) problems.push(`${where(e)}: ${e.to} is in ${target}`);
      } else if (layer.outside && (e.kind === 'builtin' || e.kind === 'package') && !layer.outside.includes(e.to)) {
        problems.push(`${where(e)}: ${name} may not use ${e.to}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

test(`no file under src/ over ${MAX_LINES} lines`, () => {
  const long = [...graph.lines].filter(([, n]) => n > MAX_LINES).map(([f, n]) => `${f}: ${n} lines`);
  assert.deepEqual(long, [], 'split these by concern');
});
