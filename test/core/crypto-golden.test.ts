/**
 * Golden vectors of docs/protocol/mp.md §4.6 (scheme-0 handshake and session cipher), §10 (paranoid
 * layer) and §7 (auto-provisioning), from test/fixtures/mp-handshake-vector.json.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { digestBase64, hmacMd5, sessionKey, verifyDigest } from '../../src/core/crypto/digest.js';
import { MpCipher, rc4Once } from '../../src/core/crypto/mp-cipher.js';
import { Rc4 } from '../../src/core/crypto/rc4.js';
import { scheme0Reply } from '../../src/core/mp/welcome.js';
import { formatScheme0, parseScheme0 } from '../../src/core/mp/message.js';
import { parseParanoid } from '../../src/core/mp/paranoid.js';
import { handshakeVector } from '../fixtures/load.js';

const V = handshakeVector();
const S = V.scheme0;

test('§4.6 HMAC-MD5 of the client and server tokens', () => {
  assert.equal(hmacMd5(S.carPassword, S.clientToken).toString('hex'), S.clientHmacHex);
  assert.equal(hmacMd5(S.carPassword, S.serverToken).toString('hex'), S.serverHmacHex);
});

test('§4.6 client digest, padded and unpadded', () => {
  const padded = digestBase64(S.carPassword, S.clientToken);
  assert.equal(padded, S.clientDigestPadded);
  assert.equal(padded.replace(/=+$/, ''), S.clientDigestUnpadded);
  assert.equal(`MP-C 0 ${S.clientToken} ${padded} ${S.vehicleId}`, S.clientWelcomeLine);
  assert.ok(verifyDigest(S.carPassword, S.clientToken, S.clientDigestPadded));
  assert.ok(verifyDigest(S.carPassword, S.clientToken, S.clientDigestUnpadded));
});

test('§4.6 server reply line', () => {
  assert.equal(scheme0Reply(S.serverToken, digestBase64(S.carPassword, S.serverToken)), S.serverReplyLine);
});

test('§4.6 session key = HMAC-MD5(carpass, servertoken ‖ clienttoken)', () => {
  assert.equal(S.serverToken + S.clientToken, S.sessionKeyInput);
  const key = sessionKey(S.carPassword, S.serverToken, S.clientToken);
  assert.equal(key.length, 16);
  assert.equal(key.toString('hex'), S.sessionKeyHex);
  assert.equal(hmacMd5(S.carPassword, S.sessionKeyInput).toString('hex'), S.sessionKeyHex);
});

test('§4.6 RC4 keystream bytes 1025–1040 after priming with 1024 bytes', () => {
  const key = Buffer.from(S.sessionKeyHex, 'hex');
  const primed = new Rc4(key, 1024).apply(new Uint8Array(16));
  assert.equal(Buffer.from(primed).toString('hex'), S.keystream1025to1040Hex);
  // The same bytes as positions 1025–1040 of an unprimed keystream.
  const whole = new Rc4(key, 0).apply(new Uint8Array(1040));
  assert.equal(Buffer.from(whole.subarray(1024)).toString('hex'), S.keystream1025to1040Hex);
});

test('§4.6 exchange rows: the server side encrypts rows 1 and 3 and decrypts rows 2 and 4', () => {
  const server = new MpCipher(sessionKey(S.carPassword, S.serverToken, S.clientToken));
  for (const row of S.exchange) {
    if (row.direction === 'server-to-car') {
      const wire = server.encrypt(row.plaintext);
      assert.equal(wire, row.wire, `row ${row.row}`);
      assert.equal(Buffer.from(wire, 'base64').toString('hex'), row.ciphertextHex, `row ${row.row}`);
    } else {
      assert.equal(Buffer.from(row.wire, 'base64').toString('hex'), row.ciphertextHex, `row ${row.row}`);
      assert.equal(server.decrypt(row.wire), row.plaintext, `row ${row.row}`);
    }
  }
});

test('§4.6 exchange rows: the car side encrypts rows 2 and 4 and decrypts rows 1 and 3', () => {
  const car = new MpCipher(sessionKey(S.carPassword, S.serverToken, S.clientToken));
  for (const row of S.exchange) {
    if (row.direction === 'car-to-server') assert.equal(car.encrypt(row.plaintext), row.wire, `row ${row.row}`);
    else assert.equal(car.decrypt(row.wire), row.plaintext, `row ${row.row}`);
  }
});

test('§4.6 decoded exchange rows parse as MP-0 messages', () => {
  assert.deepEqual(
    S.exchange.map((r) => parseScheme0(r.plaintext)),
    [
      { code: 'Z', data: '0' },
      { code: 'A', data: '' },
      { code: 'a', data: '' },
      { code: 'P', data: 'IHello world' },
    ],
  );
});

test('§10 paranoid layer: pdigest and the wrapped S payload', () => {
  const P = V.paranoid;
  const pdigest = hmacMd5(P.modulePassword, P.token);
  assert.equal(pdigest.toString('hex'), P.pdigestHex);
  const payload = Buffer.from(rc4Once(pdigest, Buffer.from(P.data, 'utf8'))).toString('base64');
  assert.equal(payload, P.payload);
  assert.equal(formatScheme0('E', `M${P.code}${payload}`), P.innerMessage);
  // And back: unwrap the inner message with a fresh RC4.
  const inner = parseScheme0(P.innerMessage);
  assert.deepEqual(inner, { code: 'E', data: `M${P.code}${P.payload}` });
  const unwrapped = parseParanoid(inner!.data);
  assert.deepEqual(unwrapped, { kind: 'message', innerCode: P.code, payload: P.payload });
  const plain = Buffer.from(rc4Once(pdigest, Buffer.from(P.payload, 'base64'))).toString('utf8');
  assert.equal(plain, P.data);
});

test('§10 rc4Once is a fresh primed state per call', () => {
  const key = hmacMd5(V.paranoid.modulePassword, V.paranoid.token);
  const a = Buffer.from(rc4Once(key, Buffer.from('85,K,0'))).toString('base64');
  const b = Buffer.from(rc4Once(key, Buffer.from('85,K,0'))).toString('base64');
  assert.equal(a, b);
});

test('§7 auto-provisioning vector: ap_sdigest and ap_msg', () => {
  const A = V.autoProvision;
  const key = hmacMd5(A.iccid, A.apStoken);
  assert.equal(key.toString('base64'), A.apSdigestPadded);
  assert.equal(key.toString('base64').replace(/=+$/, ''), A.apSdigest);
  assert.equal(digestBase64(A.iccid, A.apStoken), A.apSdigestPadded);
  assert.ok(verifyDigest(A.iccid, A.apStoken, A.apSdigest));
  const msg = Buffer.from(rc4Once(key, Buffer.from(A.params, 'utf8'))).toString('base64');
  assert.equal(msg, A.apMsg);
  // The module side: key from the (unpadded) digest, decrypt ap_msg.
  const moduleKey = Buffer.from(A.apSdigest, 'base64');
  assert.equal(Buffer.from(rc4Once(moduleKey, Buffer.from(A.apMsg, 'base64'))).toString('utf8'), A.params);
});
