/** A drive as GPX 1.1 (src/core/drives/export.ts driveGpx): well-formed, one track, points parsed back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { driveGpx, driveJson } from '../../../src/core/drives/export.js';
import { drive } from './make.js';

const T = 1_700_000_000;

/** A minimal well-formedness check: every tag closed in order, attributes quoted, only the five entities. */
function wellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const stack: string[] = [];
  for (const m of body.matchAll(/<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<|&(?!(?:amp|lt|gt|quot|apos);)/g)) {
    if (m[2] === undefined) throw new Error(`stray ${m[0]} at ${m.index}`);
    if (m[1] === '/') assert.equal(stack.pop(), m[2], `closing ${m[2]}`);
    else if (m[4] !== '/') stack.push(m[2]);
  }
  assert.deepEqual(stack, []);
}

test('GPX 1.1: namespace, creator, a track named by vehicle and start, a point per path point', () => {
  const path = [
    { t: T, lat: 52.52, lon: 13.405, speed: 0, soc: 80 },
    { t: T + 30, lat: 52.5201234, lon: -0.00000001, speed: 30, soc: 80 },
    { t: T + 60, lat: 1e-7, lon: -1e-7, speed: 30, soc: 80 },
  ];
  const j = driveJson({ ...drive({ start: T, path }), id: 1 }, [], null, T, true);
  const gpx = driveGpx(j, 'MY<CAR>&"1"');
  wellFormed(gpx);
  assert.match(gpx, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<gpx version="1.1" creator="vts" xmlns="http:\/\/www.topografix.com\/GPX\/1\/1">/);
  assert.equal(gpx.match(/<trk>/g)!.length, 1);
  assert.equal(gpx.match(/<trkseg>/g)!.length, 1);
  assert.match(gpx, /<name>MY&lt;CAR&gt;&amp;&quot;1&quot; 2023-11-14T22:13:20Z<\/name>/);
  const points = [...gpx.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)"><time>([^<]+)<\/time><\/trkpt>/g)].map((m) => [Number(m[1]), Number(m[2]), Date.parse(m[3]!) / 1000]);
  assert.deepEqual(points, [
    [52.52, 13.405, T],
    [52.5201234, 0, T + 30],
    [1e-7, -1e-7, T + 60],
  ]);
  assert.doesNotMatch(gpx, /e-/, 'no exponent in a coordinate');
});

test('no path: an empty segment, still well-formed', () => {
  const gpx = driveGpx(driveJson({ ...drive({ start: T }), id: 1 }, [], null, T), 'CAR');
  wellFormed(gpx);
  assert.match(gpx, /<trkseg>\n\s*<\/trkseg>/);
});
