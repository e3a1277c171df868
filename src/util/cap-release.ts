/**
 * How an adapter tells the per-address connection cap (src/server/connection-cap.ts) that a
 * connection has logged in as a car: the cap counts what an address holds before it has proved
 * anything, and a car that has logged in is bounded otherwise (one connection per vehicle: a new
 * login of the car replaces the old one), so many honest cars behind one carrier-NAT address all
 * get in (docs/operations.md "Many cars behind one address"). The cap registers a release for each
 * socket it counts; the adapter calls `releaseFromCap` with the socket, once it knows.
 */
const releases = new WeakMap<object, () => void>();

/** Registers what `releaseFromCap(socket)` runs (the cap, when it counts the socket). */
export function onCapRelease(socket: object, release: () => void): void {
  releases.set(socket, release);
}

/** The socket stops counting toward its address's cap (no-op when it is not counted). */
export function releaseFromCap(socket: object): void {
  const release = releases.get(socket);
  if (!release) return;
  releases.delete(socket);
  release();
}
