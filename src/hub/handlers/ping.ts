/** `A` ping → `a` (mp-protocol.md §9). */
import type { Handler } from '../dispatch.js';

export const handlePing: Handler = (_hub, peer) => peer.send('a', '');
