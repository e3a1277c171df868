/**
 * A lean scheme-0 car connection for load generation: raw socket, core crypto, no buffering of
 * messages beyond what the benchmark reads. (Tests use src/mp-client instead.)
 */
import { connect, type Socket } from 'node:net';
import { MpCipher } from '../../src/core/crypto/mp-cipher.js';
import { digestBase64, randomToken, sessionKey } from '../../src/core/crypto/digest.js';
import { parseScheme0 } from '../../src/core/mp/message.js';
import { LineSplitter } from '../../src/core/mp/line-splitter.js';

export class BenchCar {
  private cipher: MpCipher | null = null;
  private readonly splitter = new LineSplitter(64 * 1024);
  onMessage: (code: string, data: string) => void = () => {};

  private constructor(readonly socket: Socket) {}

  static async connect(port: number, vehicleId: string, password: string, type = 'C'): Promise<BenchCar> {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const car = new BenchCar(socket);
    const clientToken = randomToken();
    const welcome = new Promise<string>((resolve, reject) => {
      // the cipher must exist before the next line of the same chunk (the server's Z) is read
      car.onWelcome = (line) => {
        const serverToken = line.split(' ')[2] ?? '';
        car.cipher = new MpCipher(sessionKey(password, serverToken, clientToken));
        resolve(line);
      };
      socket.once('close', () => reject(new Error(`login of ${vehicleId} closed`)));
    });
    socket.on('data', (chunk: Buffer) => car.data(chunk));
    socket.on('error', () => {});
    socket.write(`MP-${type} 0 ${clientToken} ${digestBase64(password, clientToken)} ${vehicleId}\r\n`);
    await welcome;
    return car;
  }

  private onWelcome: ((line: string) => void) | null = null;

  private data(chunk: Buffer): void {
    this.splitter.push(chunk, (line) => {
      if (!this.cipher) {
        this.onWelcome?.(line);
        this.onWelcome = null;
        return;
      }
      const plain = this.cipher.decrypt(line);
      const msg = plain === null ? null : parseScheme0(plain);
      if (msg) this.onMessage(msg.code, msg.data);
    });
  }

  /** Encrypts and writes several messages in one socket write. */
  sendAll(messages: readonly string[]): void {
    let out = '';
    for (const m of messages) out += this.cipher!.encrypt('MP-0 ' + m) + '\r\n';
    this.socket.write(out);
  }

  close(): void {
    this.socket.destroy();
  }
}
