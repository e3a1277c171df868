/** The first line of an MP connection (docs/protocol/mp.md §3, §7). Pure parsing, no policy. */

export type ClientType = 'C' | 'A' | 'B' | 'S';
export const CLIENT_TYPES: readonly ClientType[] = ['C', 'A', 'B', 'S'];

export interface LoginWelcome {
  kind: 'login';
  clientType: ClientType;
  /** '0' (shared secret, encrypted) or '1' (username + password, plaintext). */
  scheme: '0' | '1';
  /** Scheme 0: client token. Scheme 1: username. */
  field1: string;
  /** Scheme 0: client digest. Scheme 1: password or API token. */
  field2: string;
  /** Upper-cased vehicle id, or `*` (scheme 1: the owner's first vehicle). */
  vehicleId: string;
}

export interface AutoProvisionWelcome {
  kind: 'autoprovision';
  scheme: string;
  key: string;
}

export type WelcomeParseError =
  | { kind: 'error'; reason: 'garbage' }
  | { kind: 'error'; reason: 'unknown-client-type'; clientType: string }
  | { kind: 'error'; reason: 'unsupported-scheme'; scheme: string };

export type Welcome = LoginWelcome | AutoProvisionWelcome | WelcomeParseError;

// MP-<T> <scheme> <f1> <f2> <vehicleid>[ <anything>]  (REF's regex, blanks = spaces or tabs)
const LOGIN = /^MP-(\S)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)(?:[ \t].*)?$/;
const AUTOPROVISION = /^AP-C[ \t]+(\S+)[ \t]+(\S+)[ \t]*$/;

export function parseWelcome(line: string): Welcome {
  const login = LOGIN.exec(line);
  if (login) {
    const [, type, scheme, f1, f2, vid] = login as unknown as [string, string, string, string, string, string];
    if (!(CLIENT_TYPES as readonly string[]).includes(type)) {
      return { kind: 'error', reason: 'unknown-client-type', clientType: type };
    }
    if (scheme !== '0' && scheme !== '1') return { kind: 'error', reason: 'unsupported-scheme', scheme };
    return {
      kind: 'login',
      clientType: type as ClientType,
      scheme,
      field1: f1,
      field2: f2,
      vehicleId: vid.toUpperCase(),
    };
  }
  const ap = AUTOPROVISION.exec(line);
  if (ap) return { kind: 'autoprovision', scheme: ap[1]!, key: ap[2]! };
  return { kind: 'error', reason: 'garbage' };
}

/** `MP-S 0 <servertoken> <serverdigest>`: exactly four fields, nothing after the padded digest. */
export function scheme0Reply(serverToken: string, serverDigest: string): string {
  return `MP-S 0 ${serverToken} ${serverDigest}`;
}

/** `MP-S 1 <username> <vehicleid> <all vehicle ids of the owner>` (REF lists all, DOC "others"). */
export function scheme1Reply(username: string, vehicleId: string, allVehicleIds: readonly string[]): string {
  return ['MP-S 1', username, vehicleId, ...allVehicleIds].join(' ');
}
