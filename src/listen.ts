/** Starts a listener of any adapter (MP, HTTP, MQTT): resolves with the port taken (for port 0). */
import type { Server } from 'node:net';

export function listen(server: Server, port: number, host?: string, backlog = 4096): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}
