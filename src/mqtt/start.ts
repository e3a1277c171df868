/**
 * The v3 (MQTT) side of `vts serve`: the embedded broker (unless an external one is configured)
 * and the bridge on it. In a cluster each node's embedded broker shares its state through Redis
 * and bridges the modules connected to it; an external broker is bridged by one node at a time
 * (the leader of the role `mqtt-bridge`), or every vehicle would be bridged once per node.
 */
import type { Logger } from 'pino';
import type { LoginGuard } from '../auth/login-guard.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import type { Hub } from '../hub/hub.js';
import { describeListenError, type ListenerSpec } from '../util/listen.js';
import type { Store } from '../store/store.js';
import { startBroker, type EmbeddedBroker } from './broker.js';
import { MqttBridge } from './bridge.js';
import type { EventMode } from './bridged-vehicle.js';
import { ClientPort } from './client-port.js';
import type { BrokerCluster } from './cluster-adapters.js';
import { EmbeddedPort } from './embedded-port.js';
import { vehicleState, type VehicleState } from './vehicle-state.js';

export interface MqttConfig {
  /** Embedded broker port (0 = any free port); null = no embedded broker. */
  port: number | null;
  /** With the TLS certificate; null = off. */
  tlsPort: number | null;
  /** MQTT over WebSocket; null = off. */
  wsPort: number | null;
  /** When the embedded broker's plain port is taken: go on without the broker (a default port). */
  portOptional?: boolean;
  /** The same for its TLS port (a default port, when the certificate is given). */
  tlsPortOptional?: boolean;
  /** An external broker to bridge instead of the embedded one (`mqtt://user:pass@host:1883`). */
  url?: string;
  /** The bridge's v3 client id. */
  clientId?: string;
  events?: EventMode;
  /** Publish v2 cars' state as v3 metric topics on the embedded broker (default on). */
  mirror?: boolean;
  /** Home Assistant discovery prefix on the embedded broker; null = off (default `homeassistant`). */
  haDiscoveryPrefix?: string | null;
  /** The dashboard's address, for links in the discovery. */
  publicUrl?: string;
  /** Milliseconds between two publishes of a vehicle's changed state (default 1 s; tests). */
  stateFlushMs?: number;
  /** Milliseconds between two readings of the vehicle list for the discovery (default 60 s; tests). */
  vehicleResyncMs?: number;
}

export interface MqttDeps {
  hub: Hub;
  store: Store;
  log: Logger;
  credentials: PasswordChecker;
  guard: LoginGuard;
  loginTimeoutMs: number;
  bind?: string;
  superuser?: string;
  /** A cluster node's broker shares its state through the cluster's Redis. */
  cluster?: BrokerCluster;
  /** vts's version (for the discovery's origin). */
  version: string;
}

export interface MqttSide {
  readonly broker: EmbeddedBroker | null;
  /** The vehicles' state and Home Assistant discovery on the embedded broker, when they run. */
  readonly state: VehicleState | null;
  /** The bridge that runs now, if any (for an external broker in a cluster: on the leading node only). */
  bridge(): MqttBridge | null;
  close(): Promise<void>;
}

const NONE: MqttSide = { broker: null, state: null, bridge: () => null, close: async () => undefined };

export async function startMqtt(
  m: MqttConfig | undefined,
  deps: MqttDeps,
  tls: { cert: Buffer; key: Buffer } | undefined,
  listeners: { mqtt: ListenerSpec[]; all: ListenerSpec[] },
): Promise<MqttSide> {
  if (!m) return NONE;
  const { hub, store, log } = deps;
  const bridgeOptions = { clientId: m.clientId, events: m.events };
  if (m.url) {
    if (m.mirror !== false || m.haDiscoveryPrefix !== null) log.info('the v3 state mirror and Home Assistant discovery run on the embedded broker only: off with --mqtt-url');
    return externalBridge(m.url, deps, bridgeOptions);
  }
  if (m.port === null) return NONE;
  let bridge: MqttBridge | null = null;
  const state = vehicleState(
    {
      mirror: m.mirror ?? true,
      haPrefix: m.haDiscoveryPrefix === undefined ? 'homeassistant' : m.haDiscoveryPrefix,
      publicUrl: m.publicUrl,
      version: deps.version,
      flushMs: m.stateFlushMs,
      resyncMs: m.vehicleResyncMs,
    },
    { hub, store, log, superuser: deps.superuser, v3Prefix: (vehicleId) => bridge?.vehicle(vehicleId)?.prefix },
  );
  let broker: EmbeddedBroker;
  try {
    broker = await startBroker(
      {
        store,
        credentials: deps.credentials,
        guard: deps.guard,
        log,
        now: hub.now,
        superuser: deps.superuser,
        shared: state.sharedTopics,
        onRevoke: (listener) => hub.access.onRevoke(listener),
        clientIds: {
          claim: (id, user) => hub.cluster.claim('mqtt-client-ids', id, user),
          release: (id, user) => hub.cluster.release('mqtt-client-ids', id, user),
        },
      },
      { host: deps.bind, port: m.port, tlsPort: tls ? m.tlsPort : null, wsPort: m.wsPort, tls, loginTimeoutMs: deps.loginTimeoutMs, cluster: deps.cluster },
    );
  } catch (err) {
    const failed = describeListenError(err, listeners.mqtt, listeners.all, deps.bind);
    const { port } = err as { port?: number };
    const optional = (port === m.port && m.portOptional === true) || (port === m.tlsPort && tls !== undefined && m.tlsPortOptional === true);
    if (optional && failed.code === 'VTS_ERR_PORT_IN_USE') {
      const option = listeners.mqtt.find((l) => l.port === port)?.option;
      log.warn({ port, option }, `MQTT port ${port} in use (another broker?): the embedded broker is off; choose a free port with ${option} or use --mqtt-url`);
      return NONE;
    }
    throw failed;
  }
  const embeddedBridge = new MqttBridge(hub, store, new EmbeddedPort(broker.aedes), log, bridgeOptions);
  bridge = embeddedBridge;
  try {
    await embeddedBridge.start();
  } catch (err) {
    await broker.close();
    throw err;
  }
  state.start(broker);
  return {
    broker,
    state,
    bridge: () => embeddedBridge,
    async close() {
      state.close();
      await embeddedBridge.close();
      await broker.close();
    },
  };
}

/** An external broker: bridged at once on a single node, by the leader of the role in a cluster. */
async function externalBridge(url: string, deps: MqttDeps, options: { clientId?: string; events?: EventMode }): Promise<MqttSide> {
  const { hub, store, log } = deps;
  const make = (): MqttBridge =>
    new MqttBridge(hub, store, new ClientPort({ url, clientId: options.clientId ? `${options.clientId}-bridge` : undefined, log }), log, options);
  if (!hub.cluster.clustered) {
    const bridge = make();
    await bridge.start();
    return { broker: null, state: null, bridge: () => bridge, close: () => bridge.close() };
  }
  let current: MqttBridge | null = null;
  let change: Promise<void> = Promise.resolve();
  const stop = hub.cluster.lead('mqtt-bridge', (leading) => {
    // one change at a time: a bridge is closed before the next one starts
    change = change.then(async () => {
      if (leading && !current) {
        const bridge = make();
        current = bridge;
        await bridge.start().catch((err: unknown) => log.error({ err }, 'MQTT bridge: starting failed'));
      } else if (!leading && current) {
        const bridge = current;
        current = null;
        await bridge.close().catch((err: unknown) => log.error({ err }, 'MQTT bridge: closing failed'));
      }
    });
  });
  return {
    broker: null,
    state: null,
    bridge: () => current,
    async close() {
      stop();
      await change;
    },
  };
}
