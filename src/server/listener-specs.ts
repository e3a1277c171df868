/** The listeners a server's configuration asks for, with the option that sets each port (for its errors). */
import type { ListenerSpec } from '../util/listen.js';
import type { MqttConfig } from '../mqtt/start.js';

/** The ports of a server's configuration (`ServerConfig`, src/server/server-config.ts). */
export interface ListenerPorts {
  mpPort: number;
  mpTlsPort: number;
  httpPort: number;
  httpsPort: number;
  mqtt?: MqttConfig;
}

export interface Listeners {
  mp: ListenerSpec[];
  http: ListenerSpec[];
  mqtt: ListenerSpec[];
  all: ListenerSpec[];
}

/** The listeners the configuration asks for, with the option that sets each port (for errors). */
export function listenerSpecs(config: ListenerPorts, tls: boolean): Listeners {
  const mp: ListenerSpec[] = [{ name: 'MP', option: '--mp-port', port: config.mpPort }];
  const http: ListenerSpec[] = [{ name: 'HTTP API', option: '--http-port', port: config.httpPort }];
  const mqtt: ListenerSpec[] = [];
  if (tls) {
    mp.push({ name: 'MP over TLS', option: '--mp-tls-port', port: config.mpTlsPort });
    http.push({ name: 'HTTPS API', option: '--https-port', port: config.httpsPort });
  }
  const m = config.mqtt;
  if (m && !m.url && m.port !== null) {
    mqtt.push({ name: 'MQTT broker', option: '--mqtt-port', port: m.port });
    if (tls && m.tlsPort !== null) mqtt.push({ name: 'MQTT over TLS', option: '--mqtts-port', port: m.tlsPort });
    if (m.wsPort !== null) mqtt.push({ name: 'MQTT over WebSocket', option: '--mqtt-ws-port', port: m.wsPort });
  }
  return { mp, http, mqtt, all: [...mp, ...http, ...mqtt] };
}
