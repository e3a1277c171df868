/** Push subscription `p` (docs/protocol/mp.md §12.2). */

export interface PushSubscriptionInput {
  appId: string;
  pushType: string;
  pushKeyType: string;
  /** Present in the full form `<vehicleid>,<netpass>,<pushkeyvalue>`. */
  vehicleId?: string;
  netPass?: string;
  /** The push key (device token, e-mail address). */
  pushKeyValue: string;
}

const FULL = /^([^,]+),(.+),([^,]+)$/s; // REF's pattern: nothing may be empty

/**
 * `p<appid>,<pushtype>,<pushkeytype>,<vehicleid>,<netpass>,<pushkeyvalue>`; the password in the
 * middle may contain commas. The short form `p<appid>,<pushtype>,simple,<key>` registers a key for
 * the connection's own vehicle. Returns null when neither form matches.
 */
export function parsePushSubscription(data: string): PushSubscriptionInput | null {
  const parts = data.split(',');
  if (parts.length < 4) return null;
  const [appId, pushType] = parts as [string, string];
  let pushKeyType = parts[2]!;
  const rest = parts.slice(3).join(',');
  if (!appId || !pushType) return null;
  if (pushType === 'apns') pushKeyType = 'production';
  const full = FULL.exec(rest);
  if (full) {
    return {
      appId,
      pushType,
      pushKeyType,
      vehicleId: full[1]!.toUpperCase(),
      netPass: full[2]!,
      pushKeyValue: full[3]!,
    };
  }
  if (pushKeyType === 'simple') return { appId, pushType, pushKeyType, pushKeyValue: rest };
  return null;
}
