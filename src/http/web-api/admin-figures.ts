/**
 * What the operator's page reads of the running server (`GET /api/admin/server`) and what it
 * asks of it (ending a disabled user's live connections), as the HTTP side sees it; the server
 * (src/server/admin-side.ts) provides it.
 */

/** The connections one node holds now, by kind. */
export interface NodeConnections {
  /** v2 cars over MP. */
  cars: number;
  /** MP apps. */
  apps: number;
  /** MP batch clients. */
  batch: number;
  /** v3 vehicles linked over MQTT. */
  mqttModules: number;
  /** Clients of the embedded MQTT broker (modules and apps). */
  mqttClients: number;
  /** HTTP API sessions registered on vehicles (as apps). */
  apiSessions: number;
  /** Open live streams of the dashboard (`GET /api/live`). */
  liveStreams: number;
}

export interface NodeFigures {
  /** The node's name (`--node-id`; the host name on a single node). */
  node: string;
  connections: NodeConnections;
  /** Car messages received per second over the last seconds (MP and the MQTT bridge). */
  messagesPerSecond: number;
  /** When these figures were taken (epoch seconds). */
  time: number;
}

export interface ServerFigures {
  version: string;
  /** Seconds since this node started. */
  uptime: number;
  /** This node's figures. */
  self: NodeFigures;
  /** Push deliveries not done yet, by channel (the shared outbox). */
  outbox: Record<string, number>;
  cluster: {
    clustered: boolean;
    /** `ok`, `off`, `degraded: …` (as `/ready`). */
    health: string;
    /** Every node heard from in the last seconds, this one first. */
    nodes: NodeFigures[];
  };
}

export interface AdminSide {
  /** The figures of the server now. */
  figures(): Promise<ServerFigures>;
  /** Ends the live connections (MP apps and batch clients, MQTT clients) of a user on every node. */
  disconnectUser(ownerId: number, name: string): void;
}
