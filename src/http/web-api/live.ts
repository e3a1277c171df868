/**
 * `GET /api/live/<VEHICLEID>`: live updates as Server-Sent Events (docs/web-api.md "Live
 * updates"). The stream counts as an app of the vehicle while it is open (like `GET /api/vehicle`),
 * keeps its web session alive, and is closed when the session ends or the server stops. A slow
 * reader loses nothing up to the socket buffer; beyond 1 MiB unsent, the stream is closed.
 */
import { replayOrder } from '../../core/mp/car-message.js';
import { isVtsError } from '../../errors.js';
import type { LiveEvent } from '../../hub/hub.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { notYours } from './session.js';

const PING_MS = 25_000;
const MAX_BUFFERED = 1024 * 1024;
let streams = 0;

export const live: ApiRoute = {
  async handler(call) {
    const { ctx, req, reply, principal } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    const id = vehicle.id;
    const key = `live:${++streams}`;
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'Access-Control-Allow-Origin': '*',
    });
    // HEAD: the stream's headers and no body (the stream itself never ends: it would never answer)
    if (req.method === 'HEAD') return void res.end();
    let open = true;
    const send = (event: string, data: unknown): void => {
      if (!open) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (res.writableLength > MAX_BUFFERED) finish();
    };
    const linkState = () => {
      const c = ctx.hub.counts(id);
      return { apps: c.apps, batches: c.batches, link: ctx.hub.linkKind(id), online: c.net > 0 };
    };
    const onEvent = (e: LiveEvent): void => {
      if (e.kind === 'record') send('record', { code: e.code, data: e.data, time: e.time });
      else if (e.kind === 'notification') send('notification', { text: e.text, time: e.time, type: e.type });
      else send('link', linkState());
    };
    const unwatch = ctx.hub.watch(id, onEvent);
    // a revoked share (or a removed vehicle) ends the stream at once, on whichever node it is
    const unrevoke = ctx.hub.access.onRevoke((vehicleId, userId) => {
      if (vehicleId === id && userId === principal.ownerId) finish();
    });
    const sessionId = principal.session?.id;
    // often enough to keep even a short session alive (the stream uses it)
    const pingMs = Math.max(1000, Math.min(PING_MS, Math.floor((principal.session ? ctx.sessions.timeoutOf(principal.session) : ctx.sessions.timeouts.apiMs) / 3)));
    const timer = setInterval(() => {
      // the stream keeps its session alive; when the session ended (sign-out, revoked token), it ends
      if (open) res.write(': ping\n\n');
      if (sessionId === undefined) return;
      ctx.sessions.use(sessionId).then(
        (s) => {
          if (!s) finish();
        },
        // the sessions are out of reach for a moment (a cluster's Redis): the stream goes on; the
        // cluster has said once that Redis is lost, so not once more per stream and ping
        (err: unknown) =>
          isVtsError(err, 'VTS_ERR_CLUSTER') ? ctx.log.debug({ err }, 'live stream: session check failed') : ctx.log.warn({ err }, 'live stream: session check failed'),
      );
    }, pingMs);
    timer.unref();
    function finish(): void {
      if (!open) return;
      open = false;
      ctx.liveStreams.delete(finish);
      clearInterval(timer);
      unwatch();
      unrevoke();
      ctx.hub.unregisterApiApp(id, key);
      res.end();
    }
    ctx.liveStreams.add(finish);
    req.raw.on('close', finish);
    res.on('error', finish);

    send('hello', { time: ctx.hub.seconds(), vehicle: id });
    ctx.hub.registerApiApp(id, vehicle.ownerId, key); // emits `link`
    // in a cluster: what the car's node forwards from now on is all that the read below misses
    await ctx.hub.settled(id);
    const messages = (await ctx.store.getCarMessages(id)).filter((m) => !m.paranoid);
    messages.sort((a, b) => replayOrder(a.code, b.code));
    for (const m of messages) send('record', { code: m.code, data: m.data, time: m.time });
  },
};
