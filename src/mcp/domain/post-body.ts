/**
 * How a POST /mcp body is read, from its head, as the router has always read it (Fastify's
 * content-type parsers as app.factory.ts set them): `application/json` and `text/plain` bodies
 * as text; no Content-Type and no body as an empty text (a JSON-RPC parse error later); any other
 * media type, or a body without a Content-Type, is refused 415 without reading it.
 */
export type BodyKind = 'text' | 'empty' | 'unsupported';

export function bodyKindOf(contentType: string | undefined, contentLength: string | undefined, transferEncoding: string | undefined): BodyKind {
  if (contentType === undefined) return (contentLength === undefined || contentLength === '0') && transferEncoding === undefined ? 'empty' : 'unsupported';
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json' || essence === 'text/plain' ? 'text' : 'unsupported';
}

/** The framework-shaped refusals of a body, byte for byte as Fastify and Nest's filter answered them. */
export const UNSUPPORTED_MEDIA_TYPE_BODY = '{"statusCode":415,"message":"Unsupported Media Type"}';
export const BODY_TOO_LARGE_BODY = '{"statusCode":413,"message":"Request body is too large"}';
export const LENGTH_MISMATCH_BODY = '{"statusCode":400,"message":"Request body size did not match Content-Length"}';
/** Nest's answer to an error nobody mapped. */
export const INTERNAL_ERROR_BODY = '{"statusCode":500,"message":"Internal server error"}';
