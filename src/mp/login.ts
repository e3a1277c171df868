/**
 * Login checks of the MP (docs/protocol/mp.md §4.2, §5.1): scheme 0 by the vehicle's shared secret,
 * scheme 1 by user name and password or API token. Failures carry a reason for the log (never a
 * secret); the client learns nothing but a closed connection.
 */
import { MpCipher } from '../core/crypto/mp-cipher.js';
import { digestBase64, randomToken, sessionKey, verifyDigest } from '../core/crypto/digest.js';
import { hasRight } from '../core/auth/rights.js';
import { scheme0Reply, scheme1Reply, type LoginWelcome } from '../core/mp/welcome.js';
import { authenticateUser } from '../auth/authenticate.js';
import { visibleVehicles } from '../auth/vehicle-access.js';
import type { PasswordChecker } from '../auth/password-checker.js';
import type { Store, Vehicle } from '../store/store.js';

export type LoginResult =
  /** `userId` and `access`: an app or batch login (scheme 1), the user's and its access to the vehicle. */
  | { ok: true; vehicle: Vehicle; reply: string; cipher: MpCipher | null; userId?: number; access?: 'owner' | 'control' | 'view' }
  | { ok: false; reason: string; vehicleId?: string };

/** @param nowMs the current time in epoch milliseconds */
export async function checkLogin(store: Store, cache: PasswordChecker, w: LoginWelcome, nowMs: number): Promise<LoginResult> {
  return w.scheme === '0' ? scheme0(store, w) : scheme1(store, cache, w, nowMs);
}

async function scheme0(store: Store, w: LoginWelcome): Promise<LoginResult> {
  const vehicle = await store.getVehicle(w.vehicleId);
  if (!vehicle) return { ok: false, reason: 'unknown vehicle' };
  if (!verifyDigest(vehicle.carPassword, w.field1, w.field2)) {
    return { ok: false, reason: 'incorrect client authentication', vehicleId: vehicle.id };
  }
  if (w.clientType === 'S' && vehicle.type !== 'SERVER') {
    return { ok: false, reason: 'peer server login for a vehicle that is not of type SERVER' };
  }
  let serverToken = randomToken();
  while (serverToken === w.field1) serverToken = randomToken();
  return {
    ok: true,
    vehicle,
    reply: scheme0Reply(serverToken, digestBase64(vehicle.carPassword, serverToken)),
    cipher: new MpCipher(sessionKey(vehicle.carPassword, serverToken, w.field1)),
  };
}

async function scheme1(store: Store, cache: PasswordChecker, w: LoginWelcome, nowMs: number): Promise<LoginResult> {
  const auth = await authenticateUser(store, cache, w.field1, w.field2, nowMs);
  if (!auth) return { ok: false, reason: 'wrong user name, password or token' };
  if (!hasRight(auth.permit, 'v2')) return { ok: false, reason: 'missing right v2' };
  const owner = auth.owner;
  const username = w.field1;

  // own vehicles first, then those shared with the user (src/auth/vehicle-access.ts)
  const vehicles = await visibleVehicles(store, owner.id);
  const found = w.vehicleId === '*' ? vehicles[0] : vehicles.find((v) => v.vehicle.id === w.vehicleId);
  if (!found) return { ok: false, reason: w.vehicleId === '*' ? 'user has no vehicle' : 'vehicle not owned by or shared with user' };
  const vehicle = found.vehicle;
  if (w.clientType === 'S' && (vehicle.type !== 'SERVER' || found.access !== 'owner')) {
    return { ok: false, reason: 'peer server login for a vehicle that is not of type SERVER (or not the user\'s own)' };
  }
  return {
    ok: true,
    vehicle,
    reply: scheme1Reply(username, vehicle.id, vehicles.map((v) => v.vehicle.id)),
    cipher: null,
    userId: owner.id,
    access: found.access,
  };
}
