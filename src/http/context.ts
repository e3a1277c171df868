/** What the HTTP adapter needs from the server around it. */
import type { Logger } from 'pino';
import type { AuditLog } from '../auth/audit-log.js';
import type { LoginGuard } from '../auth/login-guard.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { ApiSessions } from '../hub/sessions/api-sessions.js';
import type { CommandService } from '../hub/commands/command-service.js';
import type { CommandJobs } from '../hub/commands/command-jobs.js';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import type { WebOptions } from './web.js';
import type { Readiness } from '../hub/readiness.js';
import type { AbrpLink } from '../store/abrp-store.js';
import type { SignupService } from '../auth/signup.js';
import type { AdminSide } from './web-api/admin-figures.js';

/** `/health`, `/ready` and `/metrics` (src/http/ops.ts). */
export interface OpsContext {
  /** The server's version (`/health`). */
  version: string;
  /** When the server started (epoch ms). */
  startedAt: number;
  /** The readiness checks (coalesced: one at a time). */
  readiness(): Promise<Readiness>;
  /** `/metrics`: its bearer token and the text; null without `--metrics-token` (the route answers 404). */
  metrics: { token: string; contentType: string; render(): Promise<string> } | null;
}

/** ABRP links (src/abrp/abrp-service.ts): making one seals the token and tells the sender. */
export interface AbrpLinks {
  /** Whether the operator configured ABRP (`--abrp-api-key`). */
  readonly configured: boolean;
  /** @throws VtsError VTS_ERR_ABRP_OFF when not configured */
  link(vehicleId: string, ownerId: number, token: string): Promise<AbrpLink>;
  unlink(vehicleId: string): Promise<boolean>;
}

export interface HttpContext {
  hub: Hub;
  store: Store;
  sessions: ApiSessions;
  log: Logger;
  /** Password checks (queue and cache), shared with the MP and MQTT. */
  credentials: PasswordChecker;
  /** The login throttle shared by every secret check (HTTP, MP, MQTT). */
  guard: LoginGuard;
  /** The audit log of account actions (src/auth/audit-log.ts): `ctx.audit.record({ action, actor, via, target, detail })`. */
  audit: AuditLog;
  rateLimiter: RateLimiter;
  /** Session cookie names accepted; the first is the one `GET /api/cookie` sets. */
  cookieNames: readonly string[];
  /** Largest request body accepted (bytes). */
  bodyLimit: number;
  commands: CommandService;
  /** Background jobs of the command API. */
  jobs: CommandJobs;
  /** Path segment of the custom command API (`/api/<service>/cmd`). */
  commandService: string;
  /** The MQTT superuser of `/mqapi` (none when undefined). */
  mqttSuperuser?: string;
  /** The web dashboard: its files and map settings. */
  web: WebOptions;
  /**
   * Addresses and networks of HTTP proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are
   * believed (`--trust-proxy`); empty: none.
   */
  trustProxy: readonly string[];
  /** Open live streams (`GET /api/live`): each entry ends its stream (at shutdown). */
  liveStreams: Set<() => void>;
  /** `/health`, `/ready` and `/metrics` (src/http/ops.ts). */
  ops: OpsContext;
  /** ABRP links; none: ABRP is not configured (a link cannot be made). */
  abrp?: AbrpLinks;
  /** The alert engines of this node (src/alerts/): told when a vehicle's rules change here. */
  alerts?: { rulesChanged(vehicleId: string): void; placesChanged(ownerId: number): void };
  /** Sign-up and recovery (`--registration`, `--smtp-url`; src/http/web-api/account.ts); none: off, no mail. */
  signup?: SignupContext;
  /** The operator's page: the server's figures, ending a user's live connections (src/server/admin-side.ts). */
  admin: AdminSide;
  /** What the embedded MQTT broker offers (null: no embedded broker); known once it listens. */
  mqttInfo: () => MqttInfo | null;
  /** TOTP and passkeys (src/http/web-api/account-security.ts, passkeys.ts). */
  factors: FactorSettings;
}

/** What the second factors need from the server (docs/accounts.md "A second factor"). */
export interface FactorSettings {
  /** The server's key for sealed secrets (TOTP secrets, as the ABRP tokens), read or made at first use. */
  sealKey(): Buffer;
  /** The dashboard's address (`--public-url`): the WebAuthn relying party; none: the request's host. */
  publicUrl?: string;
}

/** Sign-up and recovery as the HTTP calls see it. */
export interface SignupContext {
  service: SignupService;
  /** The dashboard's address for the mailed links (`--public-url`); none: each request's own. */
  publicUrl?: string;
}

/** The embedded broker as the dashboard's Integrations tab describes it. */
export interface MqttInfo {
  ports: { mqtt: number; mqtts: number | null; ws: number | null };
  /** Whether v2 cars' state is published as v3 metric topics. */
  mirror: boolean;
  /** Home Assistant's discovery prefix (null: no discovery). */
  haPrefix: string | null;
}
