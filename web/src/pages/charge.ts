/** One charge (`GET /api/charges/<id>/<n>`): its figures and cost, power and SOC over the charge. */
import { chargeDetail } from '../api';
import { h, replace } from '../dom';
import { DASH, dateTimeText, durationText, fmt } from '../format';
import { href } from '../router';
import type { ChargeDetail } from '../types';
import { energyText, kindText, SOURCE_TEXT } from './charges';
import { chartBox, drawLine, errorText, money, placeText, socText, type ChartBox } from './session-parts';
import type { VehicleContext } from './vehicle';

export function chargePage(ctx: VehicleContext, id: number): { el: HTMLElement; destroy(): void } {
  const back = h('a', { href: href({ name: 'vehicle', id: ctx.id, tab: 'charges' }), class: 'back-link', 'data-testid': 'charge-back' }, '‹ All charges');
  const body = h('div', {}, h('p', { class: 'muted', role: 'status' }, 'Loading…'));
  const el = h('div', { class: 'session-page', 'data-testid': 'charge-page' }, back, body);
  let alive = true;
  const boxes: ChartBox[] = [];

  function show(c: ChargeDetail): void {
    const power = chartBox('chart-charge-power', 'Power (kW)', 'The charge has no power values.');
    const soc = chartBox('chart-charge-soc', 'State of charge (%) and energy added (kWh)', 'The charge has no SOC values.');
    boxes.push(power, soc);
    const pairs: [string, string][] = [
      ['Start', dateTimeText(c.start)],
      ['End', c.end === null ? 'still charging' : dateTimeText(c.end)],
      ['Duration', c.duration === null ? DASH : durationText(c.duration)],
      ['Kind', kindText(c.kind)],
      ['Added / from grid', energyText(c)],
      ['Max power', fmt(c.maxPower, 'kW', 1)],
      ['SOC', socText(c.socStart, c.socEnd)],
      ['Cost', money(c.cost, c.currency)],
      ['Source', SOURCE_TEXT[c.source] ?? c.source],
    ];
    const facts = h(
      'div',
      { class: 'card' },
      h('div', { class: 'list-head' }, h('h2', { 'data-testid': 'charge-title' }, `Charge at ${placeText(c.at)}`)),
      h('dl', { class: 'kv' }, ...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', k === 'Cost' ? { 'data-testid': 'charge-page-cost' } : {}, v)])),
      c.cost === null && !c.at?.place ? h('p', { class: 'muted small' }, 'No cost: the charge is not inside one of your places. ', h('a', { href: href({ name: 'places' }) }, 'Add a place'), ' with its tariff and the cost is filled in.') : null,
    );
    replace(body, facts, h('div', { class: 'charts' }, power.figure, soc.figure));
    const s = c.samples ?? [];
    const from = s[0]?.t ?? c.start;
    const to = Math.max(s[s.length - 1]?.t ?? c.end ?? c.start, from + 60);
    const pts = (k: 'power' | 'soc' | 'energy') => s.filter((p) => p[k] !== null).map((p) => [p.t, p[k] as number] as [number, number]);
    requestAnimationFrame(() => {
      if (!alive) return;
      drawLine(power, { from, to, left: 'kW', series: [{ label: 'Power', points: pts('power'), color: '#d9480f' }] });
      drawLine(soc, {
        from,
        to,
        left: 'SOC (%)',
        right: 'kWh',
        series: [
          { label: 'SOC', points: pts('soc'), color: '#0b66c3' },
          { label: 'Energy added', points: pts('energy'), color: '#2e9e5b', right: true },
        ],
      });
    });
  }

  chargeDetail(ctx.id, id).then(
    (c) => {
      if (alive) show(c);
    },
    (err: unknown) => {
      if (!alive) return;
      replace(body, h('p', { class: 'error', role: 'alert', 'data-testid': 'charge-error' }, `The charge could not be loaded: ${errorText(err)}`));
    },
  );

  return {
    el,
    destroy() {
      alive = false;
      for (const b of boxes) b.chart?.destroy();
    },
  };
}
