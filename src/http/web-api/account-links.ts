/**
 * The pages the account mails link to (docs/accounts.md "Sign-up and recovery"): `GET /verify`
 * and `GET /reset` with `?token=<token>` redirect to the dashboard's page of that name,
 * `/#/verify?token=…` (`/#/reset?token=…`): the dashboard is one page with hash routes, and the
 * token goes on in the fragment, which browsers send to no server (no Referer either). The request
 * line with the token is never logged (src/http/params.ts `loggedPath` drops the query).
 */
import type { FastifyInstance } from 'fastify';
import { TOKEN_SYNTAX } from '../../auth/signup.js';
import { status } from '../reply.js';

export function registerAccountLinks(app: FastifyInstance): void {
  for (const page of ['verify', 'reset'] as const) {
    app.get(`/${page}`, (req, reply) => {
      const q = req.query as Record<string, unknown> | undefined;
      const token = typeof q?.token === 'string' && TOKEN_SYNTAX.test(q.token) ? q.token : '';
      reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      const target = token === '' ? `/#/${page}` : `/#/${page}?token=${token}`;
      return status(reply, 302).header('Location', target).send();
    });
  }
}
