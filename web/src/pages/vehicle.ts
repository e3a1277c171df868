/**
 * One vehicle: a header with its connection badge and the tabs Live, History and Console. The
 * live stream is opened for the whole page (it feeds the badge and the Live tab); each tab is
 * built the first time it is shown and kept while the page is open.
 */
import { h, setText } from '../dom';
import { epochOf, linkLabel, linkTitle } from '../format';
import { LiveStream, type StreamState } from '../live-stream';
import { href, type Page, type Route, type VehicleTab } from '../router';
import type { LiveLink } from '../types';
import { consolePanel } from './console';
import { historyPanel } from './history';
import { livePanel } from './live';

/** A tab's content. */
export interface Panel {
  el: HTMLElement;
  /** called each time the tab becomes visible */
  shown?(): void;
  destroy?(): void;
}

/** What the tabs share: the vehicle, its stream, and the latest state seen on it. */
export interface VehicleContext {
  id: string;
  stream: LiveStream;
  /** the last `link` event, null before the first */
  link: LiveLink | null;
  /** epoch seconds of the last `record` event */
  lastRecord: number | null;
}

const TABS: { tab: VehicleTab; label: string }[] = [
  { tab: 'live', label: 'Live' },
  { tab: 'history', label: 'History' },
  { tab: 'console', label: 'Console' },
];

const STREAM_TEXT: Record<StreamState, string> = {
  connecting: 'connecting…',
  open: 'live',
  retrying: 'live updates unavailable, retrying…',
};

export function vehiclePage(id: string, initialTab: VehicleTab): Page {
  const stream = new LiveStream(id);
  const ctx: VehicleContext = { id, stream, link: null, lastRecord: null };

  const badge = h('span', { class: 'badge', 'data-testid': 'live-link', 'data-link': 'unknown' }, '…');
  const apps = h('span', { class: 'muted' });
  const streamState = h('span', { class: 'stream-state muted', role: 'status' }, STREAM_TEXT.connecting);

  const tabLinks = new Map<VehicleTab, HTMLAnchorElement>();
  const tabNav = h('nav', { class: 'tabs', 'aria-label': 'Vehicle views' });
  for (const t of TABS) {
    const a = h('a', { href: href({ name: 'vehicle', id, tab: t.tab }), 'data-testid': `tab-${t.tab}` }, t.label);
    tabLinks.set(t.tab, a);
    tabNav.append(a);
  }
  const body = h('div', { class: 'tab-body' });
  const el = h(
    'section',
    { class: 'page vehicle' },
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, h('a', { href: '#/', class: 'back', 'aria-label': 'All vehicles' }, '‹'), ' ', id),
      h('div', { class: 'conn' }, badge, apps, streamState),
    ),
    tabNav,
    body,
  );

  stream.subscribe({
    link(l) {
      ctx.link = l;
      setText(badge, linkLabel(l.link, l.online));
      badge.title = linkTitle(l.link, l.online);
      badge.dataset.link = l.online && l.link ? l.link : 'offline';
      setText(apps, `${l.apps} app${l.apps === 1 ? '' : 's'}${l.batches ? `, ${l.batches} batch` : ''}`);
    },
    record(r) {
      ctx.lastRecord = epochOf(r.time) ?? Date.now() / 1000;
    },
    state(s) {
      setText(streamState, STREAM_TEXT[s]);
      streamState.dataset.state = s;
    },
  });

  const panels = new Map<VehicleTab, Panel>();
  let current: VehicleTab | null = null;

  function show(tab: VehicleTab): void {
    if (tab === current) return;
    current = tab;
    for (const [t, a] of tabLinks) {
      if (t === tab) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    let panel = panels.get(tab);
    if (!panel) {
      panel = tab === 'live' ? livePanel(ctx) : tab === 'history' ? historyPanel(ctx) : consolePanel(ctx);
      panels.set(tab, panel);
      body.append(panel.el);
    }
    for (const [t, p] of panels) p.el.hidden = t !== tab;
    panel.shown?.();
  }

  show(initialTab);
  stream.start();

  return {
    el,
    title: id,
    update(route: Route): boolean {
      if (route.name !== 'vehicle' || route.id !== id) return false;
      show(route.tab);
      return true;
    },
    destroy() {
      stream.close();
      for (const p of panels.values()) p.destroy?.();
    },
  };
}
