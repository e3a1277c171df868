/**
 * The custom API's authentication (command-execution.md §8.2): the vehicle id and its server
 * (car) password, `fn.vehicleid` and `fn.carpass`. Failures count against the caller's address in
 * the address throttle shared with the MP and the API v2; an address over its limit is refused
 * without a check.
 */
import { sameSecret } from '../../core/crypto/same-secret.js';
import type { FastifyRequest } from 'fastify';
import type { Vehicle } from '../../store/store.js';
import type { HttpContext } from '../context.js';
import { clientAddress } from '../params.js';

/**
 * The vehicle when `carpass` is its password; undefined (answer 401 `Authentication failed`) when
 * the vehicle is unknown, the password wrong, or the address throttled. `vehicleId` upper-cased.
 */
export async function vehicleByPassword(
  ctx: HttpContext,
  req: FastifyRequest,
  vehicleId: string,
  carpass: string,
): Promise<Vehicle | undefined> {
  const address = clientAddress(req);
  const now = ctx.hub.seconds();
  if (ctx.addressThrottle.check(address, now).action === 'refuse') return undefined;
  const vehicle = await ctx.store.getVehicle(vehicleId);
  // compare even for an unknown vehicle: the answer takes as long either way
  const ok = sameSecret(carpass, vehicle?.carPassword ?? '\u0000no vehicle') && vehicle !== undefined;
  if (!ok) {
    ctx.addressThrottle.recordFailure(address, now);
    ctx.log.info({ address, vehicle: vehicleId }, 'custom API authentication failed');
    return undefined;
  }
  return vehicle;
}
