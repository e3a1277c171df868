/**
 * Vehicle / Notifications: the vehicle's latest push notifications (`GET /api/notifications/<id>`),
 * newest first, each a <details> with its deliveries (channel, app or target, state) and their
 * attempts (time, outcome); an alert of one of the owner's rules names its event (Alerts tab), one
 * held for the quiet hours says until when. Read each time the tab is shown, a moment after the
 * car pushes one (live stream), and again every few seconds while a delivery is still under way.
 */
import { ApiError, notificationHistory, notifyTargets } from '../api';
import { h, on, replace, setText } from '../dom';
import { dateTimeText } from '../format';
import { eventLabel } from '../alert-text';
import { alertKind, channelLabel, stateLabel, stateTone } from '../push-text';
import type { DeliveryState, NotificationDelivery, NotificationEntry } from '../types';
import type { Panel, VehicleContext } from './vehicle';

const SHOWN = 50;
/** after a `notification` event: the server records it, then delivers */
const AFTER_EVENT_MS = 1_000;
/** while a delivery is pending or awaits its receipt */
const WHILE_OPEN_MS = 5_000;

const OPEN_STATES: ReadonlySet<DeliveryState> = new Set(['pending', 'receipt']);
/** the order of the counts in a notification's summary */
const STATE_ORDER: readonly DeliveryState[] = ['delivered', 'receipt', 'pending', 'skipped', 'failed', 'removed'];

/** What became of a notification, in a few words: `2 delivered · 1 failed`. */
function outcome(n: NotificationEntry): { text: string; tone: string } {
  if (n.limited) return { text: 'rate-limited: not delivered', tone: 'warn' };
  if (n.deliveries.length === 0) return { text: 'no deliveries', tone: 'neutral' };
  const counts = new Map<string, number>();
  const sorted = [...n.deliveries].sort((a, b) => STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state));
  for (const d of sorted) counts.set(stateLabel(d), (counts.get(stateLabel(d)) ?? 0) + 1);
  const tones = n.deliveries.map((d) => stateTone(d.state));
  const tone = tones.includes('bad') ? 'bad' : tones.every((t) => t === 'good') ? 'good' : tones.includes('warn') ? 'warn' : 'neutral';
  return { text: [...counts].map(([label, count]) => `${count} ${label}`).join(' · '), tone };
}

/** Until when a notification was held for quiet hours: `07:00`, with the date when a day or more later. */
function heldText(time: number, until: number): string {
  if (until - time >= 86400) return dateTimeText(until);
  return new Date(until * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

function attemptItem(a: NotificationDelivery['attempts'][number]): HTMLLIElement {
  return h(
    'li',
    { class: 'attempt', 'data-testid': 'push-attempt', 'data-state': a.state },
    h('time', { datetime: new Date(a.time * 1000).toISOString() }, dateTimeText(a.time, true)),
    h('span', { class: `attempt-detail ${stateTone(a.state)}` }, a.detail || stateLabel({ state: a.state, attempts: [] })),
  );
}

function deliveryItem(d: NotificationDelivery, targets: ReadonlyMap<number, string>): HTMLLIElement {
  const to = d.targetId ? (targets.get(d.targetId) ?? `target #${d.targetId}`) : d.appId;
  return h(
    'li',
    { class: 'delivery', 'data-testid': 'push-delivery', 'data-state': d.state, 'data-channel': d.channel },
    h(
      'div',
      { class: 'delivery-head' },
      h('strong', {}, channelLabel(d.channel)),
      h('code', { class: 'delivery-to', title: d.targetId ? `target #${d.targetId}` : 'app id' }, to),
      h('span', { class: `state ${stateTone(d.state)}`, 'data-testid': 'push-delivery-state' }, stateLabel(d)),
    ),
    d.attempts.length
      ? h('ol', { class: 'attempts' }, ...d.attempts.map(attemptItem))
      : h('p', { class: 'muted small' }, 'Not tried yet.'),
  );
}

function notificationItem(n: NotificationEntry, targets: ReadonlyMap<number, string>, open: boolean): HTMLLIElement {
  const kind = alertKind(n.alertType);
  const o = outcome(n);
  const details = h(
    'details',
    { open },
    h(
      'summary',
      {},
      h(
        'span',
        { class: 'push-note-head' },
        h('span', { class: 'badge' }, kind),
        n.event ? h('span', { class: 'badge event', 'data-testid': 'push-event', 'data-event': n.event, title: n.rule === null ? undefined : `alert rule #${n.rule}` }, eventLabel(n.event)) : null,
        h('time', { datetime: new Date(n.time * 1000).toISOString() }, dateTimeText(n.time, true)),
        n.heldUntil ? h('span', { class: 'push-held', 'data-testid': 'push-held', title: 'Held for your quiet hours' }, `held until ${heldText(n.time, n.heldUntil)}`) : null,
        h('span', { class: `push-outcome ${o.tone}`, 'data-testid': n.limited ? 'push-limited' : 'push-outcome' }, o.text),
      ),
      h('span', { class: 'text' }, n.text),
    ),
    n.limited
      ? h('p', { class: 'muted small' }, 'Over the vehicle’s rate limit (a burst of alerts is limited, so that a misbehaving module cannot flood a phone): recorded, not delivered.')
      : n.deliveries.length === 0
        ? h('p', { class: 'muted small' }, 'No app had subscribed and you had no targets, or this kind of alert is not pushed.')
        : h('ul', { class: 'deliveries' }, ...n.deliveries.map((d) => deliveryItem(d, targets))),
  );
  return h(
    'li',
    { class: `push-note ${kind}${n.limited ? ' limited' : ''}`, 'data-testid': 'push-notification', 'data-id': n.id, 'data-limited': n.limited ? 'true' : 'false' },
    details,
  );
}

export function notificationsPanel(ctx: VehicleContext): Panel {
  const reload = h('button', { type: 'button', class: 'secondary', 'data-testid': 'push-history-reload' }, 'Reload');
  const statusLine = h('p', { class: 'muted', role: 'status', 'data-testid': 'push-history-status' });
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const list = h('ol', { class: 'push-history', 'data-testid': 'push-history' });
  const empty = h(
    'p',
    { class: 'muted', hidden: true, 'data-testid': 'push-history-empty' },
    'No notifications yet: the car’s alerts (charging stopped, alarm…) appear here with how each was delivered.',
  );
  const el = h(
    'div',
    { class: 'panel notifications-panel' },
    h('div', { class: 'toolbar' }, statusLine, reload),
    errorBox,
    h('section', { class: 'card', 'aria-label': 'Notifications' }, empty, list),
  );

  let alive = true;
  let request = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** the notifications whose details the user opened: kept open when the list is read again */
  const opened = new Set<number>();

  function later(ms: number): void {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (alive && !el.hidden) void load();
    }, ms);
  }

  async function targetNames(): Promise<Map<number, string>> {
    try {
      return new Map((await notifyTargets()).map((t) => [t.id, t.url]));
    } catch {
      // the deliveries then name a target by its id
      return new Map();
    }
  }

  function show(entries: NotificationEntry[], targets: ReadonlyMap<number, string>): void {
    replace(
      list,
      ...entries.map((n) => {
        const item = notificationItem(n, targets, opened.has(n.id));
        const details = item.querySelector('details');
        if (details) {
          on(details, {
            toggle: () => {
              if (details.open) opened.add(n.id);
              else opened.delete(n.id);
            },
          });
        }
        return item;
      }),
    );
    empty.hidden = entries.length > 0;
    setText(statusLine, entries.length ? `The latest ${entries.length} notification${entries.length === 1 ? '' : 's'}, newest first.` : '');
  }

  async function load(): Promise<void> {
    const mine = ++request;
    clearTimeout(timer);
    el.setAttribute('aria-busy', 'true');
    try {
      const [entries, targets] = await Promise.all([notificationHistory(ctx.id, SHOWN), targetNames()]);
      if (!alive || mine !== request) return;
      errorBox.hidden = true;
      show(entries, targets);
      if (entries.some((n) => n.deliveries.some((d) => OPEN_STATES.has(d.state)))) later(WHILE_OPEN_MS);
    } catch (err) {
      if (!alive || mine !== request) return;
      if (err instanceof ApiError && err.status === 403) ctx.refused();
      setText(errorBox, `The notifications could not be loaded: ${err instanceof ApiError ? err.message : String(err)}`);
      errorBox.hidden = false;
    } finally {
      if (mine === request) el.removeAttribute('aria-busy');
    }
  }

  on(reload, { click: () => void load() });
  const unsubscribe = ctx.stream.subscribe({
    notification: () => later(AFTER_EVENT_MS),
  });

  return {
    el,
    shown() {
      void load();
    },
    destroy() {
      alive = false;
      clearTimeout(timer);
      unsubscribe();
    },
  };
}
