/** ABRP live telemetry in the server (src/server/server.ts): the service, its observer, its close. */
import type { Logger } from 'pino';
import type { CarDataObserver } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import { AbrpService } from './abrp-service.js';
import { loadTokenKey } from './token-key.js';

/** `vts serve`'s ABRP settings (`--abrp-api-key`, `--abrp-url`, `--abrp-token-key`). */
export interface AbrpConfig {
  apiKey?: string;
  url?: string;
  /** The token key as 64 hex digits; else the data directory's key file. */
  tokenKey?: string;
  /** Time one send may take (ms). */
  timeoutMs?: number;
}

export interface AbrpDeps {
  store: Store;
  log: Logger;
  dataDir: string;
  seconds: () => number;
  onCarData(observer: CarDataObserver): () => void;
}

export interface AbrpSide {
  service: AbrpService;
  close(): Promise<void>;
}

/** The service; with an API key it hears the cars and sends (the token key loaded or made first). */
export function startAbrp(config: AbrpConfig | undefined, deps: AbrpDeps): AbrpSide {
  const apiKey = config?.apiKey || undefined;
  const tokenKey = apiKey ? loadTokenKey(config?.tokenKey, deps.dataDir) : null;
  const service = new AbrpService(deps.store, deps.log, deps.seconds, {
    ...(apiKey ? { apiKey } : {}),
    ...(config?.url ? { url: config.url } : {}),
    ...(config?.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    tokenKey,
  });
  const stop = apiKey ? deps.onCarData(service.observer()) : () => undefined;
  // the host only: a URL may hold a credential
  if (apiKey) deps.log.info({ host: config?.url ? new URL(config.url).host : 'api.iternio.com' }, 'ABRP: sending live telemetry of the linked vehicles');
  return {
    service,
    close: async () => {
      stop();
      await service.close();
    },
  };
}
