/**
 * Requests this node sent to another node and whose answer it waits for: the replay barrier
 * (`sync`) and commands (`cmd`, whose answer records stream in before the end). A request ends
 * with its answer, when its time is up, or when its node leaves or Redis is lost.
 */
import { VtsError } from '../errors.js';

interface Pending {
  node: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
  onRecord?: (code: string, data: string) => void;
  timer: NodeJS.Timeout;
}

export class PendingRequests {
  private readonly byId = new Map<string, Pending>();
  private counter = 0;

  constructor(private readonly prefix: string) {}

  /**
   * Registers a request to `node`; `send(id)` sends it. Rejects with `onTimeout()` after `timeoutMs`.
   */
  start<T>(node: string, timeoutMs: number, onTimeout: () => Error, send: (id: string) => void, onRecord?: (code: string, data: string) => void): Promise<T> {
    const id = `${this.prefix}:${(++this.counter).toString(36)}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.byId.delete(id);
        reject(onTimeout());
      }, timeoutMs);
      timer.unref();
      this.byId.set(id, { node, resolve: resolve as (value: unknown) => void, reject, onRecord, timer });
      send(id);
    });
  }

  record(id: string, code: string, data: string): void {
    this.byId.get(id)?.onRecord?.(code, data);
  }

  resolve(id: string, value: unknown): void {
    const p = this.take(id);
    p?.resolve(value);
  }

  reject(id: string, err: Error): void {
    this.take(id)?.reject(err);
  }

  /** Ends every request to the node (it left), or every request (Redis is lost) when `node` is undefined. */
  failAll(node: string | undefined, why: string): void {
    for (const [id, p] of [...this.byId]) {
      if (node === undefined || p.node === node) this.take(id)?.reject(new VtsError('VTS_ERR_NOT_CONNECTED', why));
    }
  }

  private take(id: string): Pending | undefined {
    const p = this.byId.get(id);
    if (!p) return undefined;
    this.byId.delete(id);
    clearTimeout(p.timer);
    return p;
  }

  get size(): number {
    return this.byId.size;
  }
}
