/**
 * Vehicle / Integrations (`GET /api/integrations/<id>`): how to connect Home Assistant (and any
 * MQTT tool) to the vehicle's state on vts's embedded broker — the broker's address, the user
 * name, a token made for it here (shown once), what appears, the vehicle's topics, and the
 * bridge for a Home Assistant that keeps its own Mosquitto.
 */
import { ApiError, createToken, integrations } from '../api';
import { h, on, replace, setText } from '../dom';
import type { IntegrationsInfo, MqttIntegration } from '../types';
import { copyText } from './account';
import type { Panel, VehicleContext } from './vehicle';

const ENTITIES = [
  'State of charge',
  'Estimated range',
  'Ideal range',
  'Odometer',
  'Charge power',
  'Charge energy',
  'Energy charged (Energy dashboard)',
  'Charging',
  'Plugged in',
  'Lock',
  'Doors',
  '12 V battery',
  'Outside, battery and cabin temperature',
  'Location on the map',
  'Last seen',
  'Connected',
  'Switch: Charge',
  'Switch: Climate',
  'Button: Wake up',
];

function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

function row(label: string, value: Node | string, testid: string): HTMLElement {
  return h('tr', {}, h('th', { scope: 'row' }, label), h('td', { 'data-testid': testid }, value));
}

/** The Mosquitto bridge configuration for this user (a token instead of the password). */
function bridgeConfig(host: string, m: MqttIntegration): string {
  const tls = m.ports.mqtts !== null;
  const lines = [
    'connection vts',
    `address ${host}:${tls ? m.ports.mqtts : m.ports.mqtt}`,
    ...(tls ? ['bridge_capath /etc/ssl/certs'] : []),
    `remote_username ${m.username}`,
    'remote_password <an API token with the rights mqtt,command>',
    'try_private true',
    ...(m.homeAssistant ? [`topic ${m.homeAssistant.prefix}/# in 0`, `topic ${m.homeAssistant.prefix}/status out 0`] : []),
    `topic ovms/${m.username}/# both 0`,
  ];
  return lines.join('\n');
}

function homeAssistantCard(ctx: VehicleContext, m: MqttIntegration): HTMLElement {
  const host = location.hostname;
  const tokenValue = h('code', { class: 'secret', 'data-testid': 'ha-token' });
  const copyStatus = h('span', { class: 'muted small', role: 'status' });
  const copyButton = h('button', { type: 'button', class: 'secondary' }, 'Copy');
  const tokenPanel = h('div', { class: 'new-token', hidden: true }, h('p', {}, 'The token, shown this once: use it as the password in Home Assistant.'), tokenValue, ' ', copyButton, ' ', copyStatus);
  const tokenError = h('p', { class: 'error', role: 'alert', hidden: true });
  const make = h('button', { type: 'button', 'data-testid': 'ha-make-token' }, 'Create a token for Home Assistant');
  on(make, {
    click: () => {
      make.disabled = true;
      tokenError.hidden = true;
      createToken('home-assistant', `mqtt for ${ctx.id}`, 'mqtt,command')
        .then((t) => {
          setText(tokenValue, t.token);
          setText(copyStatus, '');
          tokenPanel.hidden = false;
          copyButton.focus();
        })
        .catch((err: unknown) => {
          setText(tokenError, `The token could not be created: ${errorText(err)}`);
          tokenError.hidden = false;
        })
        .finally(() => {
          make.disabled = false;
        });
    },
  });
  on(copyButton, {
    click: () => void copyText(tokenValue.textContent ?? '', tokenValue).then((ok) => setText(copyStatus, ok ? 'Copied.' : 'Copying failed: select the token and copy it by hand.')),
  });
  const ports = [`${m.ports.mqtt} (MQTT)`, ...(m.ports.mqtts !== null ? [`${m.ports.mqtts} (MQTT over TLS)`] : []), ...(m.ports.ws !== null ? [`${m.ports.ws} (WebSocket)`] : [])].join(', ');
  const ha = m.homeAssistant;
  return h(
    'div',
    { class: 'card', 'data-testid': 'ha-card' },
    h('h2', {}, 'Home Assistant'),
    ha
      ? h('p', {}, 'vts announces this vehicle to Home Assistant over MQTT: nothing to install on the module, and none of its mobile data spent.')
      : h('p', { class: 'muted', 'data-testid': 'ha-off' }, 'Home Assistant discovery is off on this server (--ha-discovery off): the vehicle\'s topics are still there for tools you configure by hand.'),
    h(
      'ol',
      { class: 'steps' },
      h('li', {}, 'In Home Assistant: Settings → Devices & services → Add integration → MQTT.'),
      h('li', {}, 'Broker ', h('code', {}, host), ', port ', h('code', {}, String(m.ports.mqtts ?? m.ports.mqtt)), m.ports.mqtts !== null ? ' (TLS)' : '', '.'),
      h('li', {}, 'User name ', h('code', {}, m.username), ', and as the password a token that may use MQTT and send commands:'),
    ),
    make,
    tokenError,
    tokenPanel,
    ha && !m.mirror
      ? h('p', { class: 'warning', 'data-testid': 'ha-mirror-off' }, 'This server does not publish the metrics of v2 cars (--mqtt-mirror off): for a v2 car most entities below stay unknown.')
      : null,
    ha ? h('h3', {}, 'What appears in Home Assistant, as a device named after the vehicle') : null,
    ha ? h('ul', { class: 'chips', 'data-testid': 'ha-entities' }, ...ENTITIES.map((e) => h('li', {}, e))) : null,
    h('h3', {}, 'The broker and the topics'),
    h(
      'table',
      { class: 'facts' },
      h('caption', { class: 'visually-hidden' }, 'MQTT'),
      h(
        'tbody',
        {},
        row('Broker ports', ports, 'ha-ports'),
        row('Vehicle topics', h('code', {}, `${m.topicPrefix}#`), 'ha-topics'),
        row('Metrics of a v2 car', m.mirror ? 'published as v3 metric topics' : 'not published (--mqtt-mirror off)', 'ha-mirror'),
        row('Discovery topic', ha ? h('code', {}, ha.discoveryTopic) : 'off', 'ha-discovery'),
        row('Car link', m.online ? 'online: the entities are available' : 'offline: the entities show unavailable until it connects', 'ha-online'),
      ),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Home Assistant already has its own Mosquitto'),
      h('p', {}, 'Bridge it to vts: put this in /etc/mosquitto/conf.d/vts.conf and restart Mosquitto.'),
      h('pre', { 'data-testid': 'ha-bridge' }, bridgeConfig(host, m)),
    ),
  );
}

export function integrationsPanel(ctx: VehicleContext): Panel {
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading…');
  const errorBox = h('p', { class: 'error', role: 'alert', hidden: true });
  const content = h('div', {});
  const el = h('div', { class: 'panel integrations' }, status, errorBox, content);
  let alive = true;
  let loaded = false;

  function show(info: IntegrationsInfo): void {
    status.hidden = true;
    if (!info.mqtt) {
      replace(content, h('div', { class: 'card' }, h('h2', {}, 'Home Assistant'), h('p', { class: 'muted', 'data-testid': 'ha-no-broker' }, 'This server runs no MQTT broker of its own (--mqtt-port off or --mqtt-url): ask its operator.')));
      return;
    }
    replace(content, homeAssistantCard(ctx, info.mqtt));
  }

  return {
    el,
    shown() {
      if (loaded) return;
      loaded = true;
      integrations(ctx.id)
        .then((info) => alive && show(info))
        .catch((err: unknown) => {
          if (!alive) return;
          if (err instanceof ApiError && err.status === 403) return ctx.refused();
          status.hidden = true;
          setText(errorBox, `The integrations could not be read: ${errorText(err)}`);
          errorBox.hidden = false;
          loaded = false;
        });
    },
    destroy() {
      alive = false;
    },
  };
}
