import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/** The paths that move to their own port when `CENTRALMCP_ROUTER_METRICS_PORT` is set (architecture §10). */
const OPS_PATH = /^\/(metrics|health\/(live|ready))(\?|$)/;
/** Marks requests relayed from the ops port; a per-process random value nobody outside can send. */
const RELAY_HEADER = 'x-centralmcp-ops-relay';

/**
 * With a metrics port, health and metrics answer there only: the main port (the one exposed to
 * callers) answers 404 for them, so a scrape or probe never shares a port with credentials. The
 * ops server relays each request into the application in process (Fastify `inject`), so health and
 * metrics keep one implementation. Register before the application starts listening.
 */
export function moveOpsPathsOffMainPort(app: NestFastifyApplication): { listen(port: number, host: string): Promise<Server> } {
  const token = randomBytes(16).toString('hex');
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    if (OPS_PATH.test(request.url) && request.headers[RELAY_HEADER] !== token) {
      void reply.code(404).send({ message: 'Not Found', statusCode: 404 });
      return;
    }
    done();
  });
  return {
    async listen(port: number, host: string): Promise<Server> {
      const server = createServer((req, res) => {
        const url = req.url ?? '/';
        if (req.method !== 'GET' || !OPS_PATH.test(url)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found","statusCode":404}');
          return;
        }
        fastify
          .inject({ method: 'GET', url, headers: { [RELAY_HEADER]: token } })
          .then((answer) => {
            res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'text/plain') }).end(answer.rawPayload);
          })
          .catch(() => res.writeHead(500).end());
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      return server;
    },
  };
}
