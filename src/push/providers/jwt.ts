/**
 * The JSON Web Tokens the push providers sign (node:crypto only): ES256 for APNs token
 * authentication (Apple's `.p8` key), RS256 for Google's OAuth2 service-account assertion.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

export type JwtAlgorithm = 'ES256' | 'RS256';

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** A JWT header: the algorithm, and what else the service wants (`kid`, `typ`). */
export interface JwtHeader {
  alg: JwtAlgorithm;
  [field: string]: unknown;
}

/**
 * `<header>.<claims>.<signature>`, each base64url, the header as given (APNs wants exactly
 * `{alg, kid}`). ES256 signatures are the raw r‖s (64 bytes) JWS asks for, not DER.
 */
export function signJwt(header: JwtHeader, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const data = Buffer.from(input);
  const signature = header.alg === 'ES256' ? sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', data, key);
  return `${input}.${base64url(signature)}`;
}

/** Why a PEM text is not a key of the wanted kind (never quoting the key), or the key. */
export type KeyLoad = { ok: true; key: KeyObject } | { ok: false; why: string };

/** A PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) private key, as the parse of node:crypto gives it. */
function loadPkcs8(pem: string): KeyLoad {
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem)) {
    const kind = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem)?.[1];
    return { ok: false, why: kind ? `it holds a PEM "${kind}", not "PRIVATE KEY" (PKCS#8)` : 'it holds no PEM private key' };
  }
  try {
    return { ok: true, key: createPrivateKey({ key: pem, format: 'pem' }) };
  } catch {
    return { ok: false, why: 'its PKCS#8 private key cannot be parsed' };
  }
}

/** An EC P-256 private key in PKCS#8 PEM (an APNs `.p8` file). */
export function loadEcP256Key(pem: string): KeyLoad {
  const loaded = loadPkcs8(pem);
  if (!loaded.ok) return loaded;
  const { asymmetricKeyType: type, asymmetricKeyDetails: details } = loaded.key;
  if (type !== 'ec') return { ok: false, why: `it holds a ${type ?? 'non-EC'} key, not an EC P-256 key` };
  if (details?.namedCurve !== 'prime256v1') return { ok: false, why: `its EC key is on ${details?.namedCurve ?? 'an unknown curve'}, not P-256` };
  return loaded;
}

/** An RSA private key in PKCS#8 PEM (a Google service account's `private_key`). */
export function loadRsaKey(pem: string): KeyLoad {
  const loaded = loadPkcs8(pem);
  if (!loaded.ok) return loaded;
  const type = loaded.key.asymmetricKeyType;
  if (type !== 'rsa') return { ok: false, why: `it holds a ${type ?? 'non-RSA'} key, not an RSA key` };
  return loaded;
}
