import { isLoopbackAddress, LOOPBACK_NAMES } from '../../common/loopback';
import { EdgeError } from '../mcp.errors';

export interface GuardSettings {
  listenHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/**
 * DNS-rebinding protection (architecture §2, MCP spec "Security Warning" of Streamable HTTP): a present
 * Origin must be allowed (listed, or on a loopback address a loopback origin); on a loopback address the Host must be a loopback name, since a rebound
 * name pointing at 127.0.0.1 is exactly the attack; elsewhere the Host must be allowed when a list
 * is set (in a cluster the Service name varies, so none is set by default).
 */
export function guardRequest(headers: { host?: string; origin?: string }, settings: GuardSettings): void {
  const { origin } = headers;
  if (origin !== undefined && !settings.allowedOrigins.includes(origin) && !(isLoopbackAddress(settings.listenHost) && isLoopbackOrigin(origin))) {
    throw new EdgeError('forbidden_origin', 'Forbidden: this Origin is not allowed');
  }
  const host = headers.host ?? '';
  const hostname = hostnameOf(host);
  if (settings.allowedHosts.length > 0) {
    if (!settings.allowedHosts.includes(host) && !settings.allowedHosts.includes(hostname)) {
      throw new EdgeError('forbidden_host', 'Forbidden: this Host is not allowed');
    }
    return;
  }
  if (isLoopbackAddress(settings.listenHost) && !LOOPBACK_NAMES.has(hostname)) {
    throw new EdgeError('forbidden_host', 'Forbidden: this Host is not allowed');
  }
}

/**
 * A page served from this machine itself (`http://localhost:3000`) may call a loopback router, as
 * the MCP SDK's own localhost protection allows; `null` and every other origin may not.
 */
function isLoopbackOrigin(origin: string): boolean {
  const match = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i.exec(origin);
  return match !== null;
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
}
