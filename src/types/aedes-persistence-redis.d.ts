/** The part of aedes-persistence-redis (no types of its own) that vts uses. */
declare module 'aedes-persistence-redis' {
  import type { Redis } from 'ioredis';

  interface RedisPersistence {
    /** Ends the persistence (and its Redis connection when it made one). */
    destroy(cb?: (err?: Error) => void): void;
  }

  function persistence(opts: { conn?: Redis; packetTTL?: () => number; maxSessionDelivery?: number }): RedisPersistence;
  export = persistence;
}
