/**
 * The custom API's authentication (docs/protocol/commands.md §8.2): the vehicle id and its server
 * (car) password, `fn.vehicleid` and `fn.carpass`, checked through the login guard like every
 * other secret (the vehicle is the account; an attempt over a limit is not checked).
 */
import { sameSecret } from '../../core/crypto/same-secret.js';
import type { FastifyRequest } from 'fastify';
import { vehicleAccount } from '../../auth/login-guard.js';
import type { Vehicle } from '../../store/store.js';
import type { Throttled } from '../auth.js';
import type { HttpContext } from '../context.js';
import { clientAddress } from '../params.js';

/**
 * The vehicle when `carpass` is its password; undefined (answer 401 `Authentication failed`) when
 * the vehicle is unknown or the password wrong; `Throttled` (answer 429) when the attempt is over
 * a limit. `vehicleId` upper-cased.
 */
export async function vehicleByPassword(
  ctx: HttpContext,
  req: FastifyRequest,
  vehicleId: string,
  carpass: string,
): Promise<Vehicle | Throttled | undefined> {
  const address = clientAddress(req);
  const outcome = await ctx.guard.attempt(address, vehicleAccount(vehicleId), async () => {
    const vehicle = await ctx.store.getVehicle(vehicleId);
    // compare even for an unknown vehicle: the answer takes as long either way
    const ok = sameSecret(carpass, vehicle?.carPassword ?? '\u0000no vehicle') && vehicle !== undefined;
    return ok ? vehicle : null;
  });
  if (outcome.ok) return outcome.value;
  if (outcome.throttled) {
    ctx.log.info({ address, vehicle: vehicleId, limit: outcome.limit }, 'custom API authentication refused: too many failed logins');
    return { throttled: true, retryAfterSeconds: outcome.retryAfterSeconds };
  }
  ctx.log.info({ address, vehicle: vehicleId }, 'custom API authentication failed');
  return undefined;
}
