/**
 * One drive (`GET /api/drives/<id>/<n>`): its figures, the route on the map, speed and SOC along
 * it, and its GPX file.
 */
import { drive, driveGpxUrl, webConfig } from '../api';
import { h, replace } from '../dom';
import { DASH, dateTimeText, distanceUnit, durationText, fmt } from '../format';
import { DrawingMap } from '../map';
import { href } from '../router';
import type { DriveDetail } from '../types';
import { chartBox, drawLine, errorText, placeText, socText, type ChartBox } from './session-parts';
import type { VehicleContext } from './vehicle';

function kv(...pairs: [string, string][]): HTMLElement {
  return h('dl', { class: 'kv' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

export function drivePage(ctx: VehicleContext, id: number): { el: HTMLElement; destroy(): void } {
  const back = h('a', { href: href({ name: 'vehicle', id: ctx.id, tab: 'drives' }), class: 'back-link', 'data-testid': 'drive-back' }, '‹ All drives');
  const body = h('div', {}, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
  const el = h('div', { class: 'session-page', 'data-testid': 'drive-page' }, back, body);
  let alive = true;
  let map: DrawingMap | null = null;
  const boxes: ChartBox[] = [];

  function show(d: DriveDetail): void {
    const unit = distanceUnit(d.units);
    const title = `${placeText(d.from)} → ${placeText(d.to)}`;
    const gpx = h('a', { href: driveGpxUrl(ctx.id, d.id), download: `drive-${d.id}.gpx`, class: 'button-link secondary', 'data-testid': 'drive-gpx' }, 'Download GPX');
    map = new DrawingMap(webConfig(), `Route of the drive ${title}`, 'drive-map');
    const speed = chartBox('chart-speed', `Speed (${unit}/h)`, 'The drive has no speed values.');
    const soc = chartBox('chart-drive-soc', 'State of charge (%)', 'The drive has no SOC values.');
    boxes.push(speed, soc);
    const facts = h(
      'div',
      { class: 'card' },
      h('div', { class: 'list-head' }, h('h2', { 'data-testid': 'drive-title' }, title), gpx),
      kv(
        ['Start', dateTimeText(d.start)],
        ['End', d.end === null ? 'still driving' : dateTimeText(d.end)],
        ['Duration', d.duration === null ? DASH : durationText(d.duration)],
        ['Distance', fmt(d.distance, unit)],
        ['Energy used', fmt(d.energyUsed, 'kWh', 2)],
        ['Recovered', fmt(d.energyRecovered, 'kWh', 2)],
        ['Efficiency', fmt(d.efficiency, `Wh/${unit}`, 0)],
        ['Top speed', fmt(d.maxSpeed, `${unit}/h`, 0)],
        ['SOC', socText(d.socStart, d.socEnd)],
        ['Odometer', d.startOdometer === null ? DASH : `${fmt(d.startOdometer, '', 1)} → ${fmt(d.endOdometer, unit, 1)}`],
        ['Source', d.source === 'log' ? 'the car’s trip log' : 'live data'],
      ),
    );
    replace(body, h('div', { class: 'session-grid' }, facts, h('div', { class: 'card map-card' }, map.el)), h('div', { class: 'charts' }, speed.figure, soc.figure));
    const path = d.path ?? [];
    void map.showRoute(path, title);
    const from = path[0]?.t ?? d.start;
    const to = Math.max(path[path.length - 1]?.t ?? d.end ?? d.start, from + 60);
    const pts = (k: 'speed' | 'soc') => path.filter((p) => p[k] !== null).map((p) => [p.t, p[k] as number] as [number, number]);
    requestAnimationFrame(() => {
      if (!alive) return;
      drawLine(speed, { from, to, left: `${unit}/h`, series: [{ label: 'Speed', points: pts('speed'), color: '#0b66c3' }] });
      drawLine(soc, { from, to, left: '%', series: [{ label: 'SOC', points: pts('soc'), color: '#2e9e5b' }] });
    });
  }

  drive(ctx.id, id).then(
    (d) => {
      if (alive) show(d);
    },
    (err: unknown) => {
      if (!alive) return;
      replace(body, h('p', { class: 'error', role: 'alert', 'data-testid': 'drive-error' }, `The drive could not be loaded: ${errorText(err)}`));
    },
  );

  return {
    el,
    destroy() {
      alive = false;
      map?.destroy();
      for (const b of boxes) b.chart?.destroy();
    },
  };
}
