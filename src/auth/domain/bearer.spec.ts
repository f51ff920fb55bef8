import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authorizationOf, groupsFromClaim, presentedCredential, protectedResourceMetadata, refusal, refusalBody, resourceMetadataUrl } from './bearer';

test('the credential comes only from one Authorization: Bearer header', () => {
  assert.deepEqual(presentedCredential('Bearer abc.DEF-_~+/=', '/mcp'), { kind: 'token', token: 'abc.DEF-_~+/=' });
  assert.deepEqual(presentedCredential('bearer abc', '/mcp'), { kind: 'token', token: 'abc' }, 'the scheme is case-insensitive');
  assert.deepEqual(presentedCredential(['Bearer abc'], '/mcp'), { kind: 'token', token: 'abc' });
  assert.deepEqual(presentedCredential(undefined, '/mcp'), { kind: 'absent' });
  assert.deepEqual(presentedCredential('  ', '/mcp'), { kind: 'absent' });
  assert.deepEqual(presentedCredential('Basic YWxpY2U6c2VjcmV0', '/mcp'), { kind: 'absent' }, 'another scheme is no bearer credential');
});

test('malformed, repeated or query-string credentials are refused', () => {
  for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a"b', 'Bearer ' + 'a'.repeat(8193), 'Bearer =abc']) {
    assert.deepEqual(presentedCredential(header, '/mcp'), { kind: 'refused', reason: 'malformed_header' }, header.slice(0, 20));
  }
  assert.deepEqual(presentedCredential(['Bearer a', 'Bearer b'], '/mcp'), { kind: 'refused', reason: 'multiple_credentials' });
  for (const url of ['/mcp?access_token=x', '/mcp?a=1&API_KEY=x', '/mcp?token=', '/mcp?key=k#frag', '/mcp?x=1&apikey=2']) {
    assert.deepEqual(presentedCredential('Bearer ok', url), { kind: 'refused', reason: 'query_credential' }, url);
  }
  assert.deepEqual(presentedCredential('Bearer ok', '/mcp?session=1&tokens=2'), { kind: 'token', token: 'ok' });
});

test('challenges follow RFC 6750 §3.1 and name the RFC 9728 metadata in jwt mode', () => {
  const meta = 'https://router.example.com/.well-known/oauth-protected-resource/mcp';
  assert.deepEqual(refusal('missing', meta), {
    ok: false,
    status: 401,
    wwwAuthenticate: `Bearer realm="centralmcp-router", resource_metadata="${meta}"`,
    message: 'authentication required: send Authorization: Bearer <token>',
    reason: 'missing',
  });
  const expired = refusal('expired', meta);
  assert.equal(expired.status, 401);
  assert.equal(
    expired.wwwAuthenticate,
    `Bearer realm="centralmcp-router", resource_metadata="${meta}", error="invalid_token", error_description="the token has expired"`,
  );
  const query = refusal('query_credential');
  assert.equal(query.status, 400);
  assert.match(query.wwwAuthenticate, /^Bearer realm="centralmcp-router", error="invalid_request", error_description="[^"]+"$/);
  assert.equal(refusal('unknown_key').wwwAuthenticate.includes('resource_metadata'), false);
  assert.deepEqual(refusalBody(query), { error: 'invalid_request', error_description: query.message });
  assert.deepEqual(refusalBody(expired), { error: 'invalid_token', error_description: 'the token has expired' });
});

test('the metadata URL is derived from the audience (RFC 9728 §3.1)', () => {
  assert.equal(resourceMetadataUrl('https://router.example.com/mcp'), 'https://router.example.com/.well-known/oauth-protected-resource/mcp');
  assert.equal(resourceMetadataUrl('https://router.example.com/mcp/'), 'https://router.example.com/.well-known/oauth-protected-resource/mcp');
  assert.equal(resourceMetadataUrl('https://router.example.com:8443'), 'https://router.example.com:8443/.well-known/oauth-protected-resource');
  assert.equal(resourceMetadataUrl('https://example.com/gateway/v1'), 'https://example.com/.well-known/oauth-protected-resource');
  assert.deepEqual(protectedResourceMetadata('https://r/mcp', 'https://idp/'), {
    resource: 'https://r/mcp',
    authorization_servers: ['https://idp/'],
    bearer_methods_supported: ['header'],
    resource_name: 'CentralMCP Router',
  });
});

test('groups come from an array of strings or a space-separated string, nothing else', () => {
  assert.deepEqual(groupsFromClaim(['readers', 7, '', '/org/ops']), ['readers', '/org/ops']);
  assert.deepEqual(groupsFromClaim(' readers  writers '), ['readers', 'writers']);
  assert.deepEqual(groupsFromClaim(undefined), []);
  assert.deepEqual(groupsFromClaim({ readers: true }), []);
});

test('Authorization values come from every raw header line, whatever the case of the name', () => {
  assert.equal(authorizationOf(['Host', 'x', 'Authorization', 'Bearer a']), 'Bearer a');
  assert.deepEqual(authorizationOf(['authorization', 'Bearer a', 'Accept', '*/*', 'AUTHORIZATION', 'Bearer b']), ['Bearer a', 'Bearer b']);
  assert.equal(authorizationOf(['Host', 'x']), undefined);
});
