/**
 * Roles that one node of the cluster plays at a time (the bridge of an external MQTT broker): each
 * is a lease in Redis (`lead:<role>`) that its leader renews with its heartbeat; when the leader
 * dies or loses Redis, the lease runs out and the next node to renew takes the role.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { HEARTBEAT, RELEASE_LEASE } from './scripts.js';

interface Role {
  onChange(leading: boolean): void;
  leading: boolean;
}

export class Roles {
  private readonly roles = new Map<string, Role>();

  constructor(
    private readonly k: (name: string) => string,
    /** This node's lease token. */
    private readonly token: string,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {}

  /** Runs for a role; returns a function that gives it up (`release` frees the lease in Redis). */
  add(role: string, onChange: (leading: boolean) => void, release: (fn: (redis: Redis) => Promise<unknown>) => void): () => void {
    const r: Role = { onChange, leading: false };
    this.roles.set(role, r);
    return () => {
      if (this.roles.get(role) !== r) return;
      this.roles.delete(role);
      this.set(role, r, false);
      release((redis) => RELEASE_LEASE.run(redis, [this.k(`lead:${role}`)], [this.token]));
    };
  }

  /** Renews the leases of the roles this node leads, and takes up the ones nobody holds. */
  async renew(redis: Redis): Promise<void> {
    for (const [role, r] of this.roles) {
      const lease = await HEARTBEAT.run(redis, [this.k(`lead:${role}`)], [this.token, this.leaseMs]);
      this.set(role, r, lease === 1 || lease === 2);
    }
  }

  /** Stops leading everything (Redis is lost: another node takes over when the leases run out). */
  stepDown(): void {
    for (const [role, r] of this.roles) this.set(role, r, false);
  }

  /** Stops leading and frees the leases (the node leaves). */
  async leave(redis: Redis | null): Promise<void> {
    for (const [role, r] of this.roles) {
      this.set(role, r, false);
      if (redis) await RELEASE_LEASE.run(redis, [this.k(`lead:${role}`)], [this.token]).catch(() => undefined);
    }
    this.roles.clear();
  }

  private set(role: string, r: Role, leading: boolean): void {
    if (r.leading === leading) return;
    r.leading = leading;
    this.log.info({ role }, leading ? 'cluster: this node leads' : 'cluster: this node no longer leads');
    try {
      r.onChange(leading);
    } catch (err) {
      this.log.error({ err, role }, 'cluster: changing the leadership failed');
    }
  }
}
