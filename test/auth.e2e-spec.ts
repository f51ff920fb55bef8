import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type * as JoseModule from 'jose' with { 'resolution-mode': 'import' };
import type { CryptoKey, JWK, JWTPayload } from 'jose' with { 'resolution-mode': 'import' };
import { AuthModule } from '../src/auth/auth.module';
import { AuthService } from '../src/auth/auth.service';
import type { AuthResult } from '../src/auth/auth.types';
import { ANONYMOUS } from '../src/common/principal';
import { ConfigModule } from '../src/config/config.module';
import type { AuthConfig, JwtConfig } from '../src/config/config.types';
import { testConfig } from './support/router';

/**
 * Authentication (architecture §10) through AuthService with the real module graph: API keys,
 * and JWTs verified against a JWKS served by a local HTTP server, with keys generated here.
 */

type Jose = typeof JoseModule;

const AUDIENCE = 'https://router.example.com/mcp';
const METADATA_URL = 'https://router.example.com/.well-known/oauth-protected-resource/mcp';

async function authService(auth: AuthConfig): Promise<{ auth: AuthService; close: () => Promise<void> }> {
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(testConfig([], { auth })), AuthModule] }).compile();
  await moduleRef.init();
  return { auth: moduleRef.get(AuthService), close: () => moduleRef.close() };
}

function bearer(token: string, url = '/mcp') {
  return { headers: { authorization: `Bearer ${token}` }, url };
}

function assertRefused(result: AuthResult, status: 400 | 401, reason: string, error?: 'invalid_token' | 'invalid_request') {
  assert.equal(result.ok, false, 'expected a refusal');
  if (result.ok) return;
  assert.equal(result.status, status);
  assert.equal(result.reason, reason);
  if (error) assert.match(result.wwwAuthenticate, new RegExp(`error="${error}"`));
  else assert.doesNotMatch(result.wwwAuthenticate, /error=/);
}

describe('auth mode none', () => {
  test('every request is the anonymous principal, but a credential in the query string is refused (400)', async () => {
    const { auth, close } = await authService({ mode: 'none', allowInsecure: false });
    assert.deepEqual(await auth.authenticate({ headers: {}, url: '/mcp' }), { ok: true, principal: ANONYMOUS });
    assert.deepEqual(await auth.authenticate(bearer('whatever')), { ok: true, principal: ANONYMOUS });
    assertRefused(await auth.authenticate({ headers: {}, url: '/mcp?access_token=abc' }), 400, 'query_credential', 'invalid_request');
    await close();
  });
});

describe('auth mode apiKeys', () => {
  const sha = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
  const config: AuthConfig = {
    mode: 'apiKeys',
    allowInsecure: false,
    apiKeys: [
      { principal: 'alice', sha256: sha('k-alice-0123456789'), groups: ['readers'] },
      { principal: 'bob', sha256: sha('k-bob-0123456789'), groups: [] },
    ],
  };
  let auth: AuthService;
  let close: () => Promise<void>;
  before(async () => ({ auth, close } = await authService(config)));
  after(() => close());

  test('a configured key is its principal with its groups', async () => {
    assert.deepEqual(await auth.authenticate(bearer('k-alice-0123456789')), { ok: true, principal: { id: 'alice', groups: ['readers'] } });
    assert.deepEqual(await auth.authenticate(bearer('k-bob-0123456789')), { ok: true, principal: { id: 'bob', groups: [] } });
  });

  test('401 without credentials, with another scheme, with an unknown key or the hash itself', async () => {
    const missing = await auth.authenticate({ headers: {}, url: '/mcp' });
    assertRefused(missing, 401, 'missing');
    assert.ok(!missing.ok && missing.wwwAuthenticate === 'Bearer realm="centralmcp-router"');
    assertRefused(await auth.authenticate({ headers: { authorization: 'Basic YWxpY2U6aw==' }, url: '/mcp' }), 401, 'missing');
    assertRefused(await auth.authenticate(bearer('k-alice-012345678')), 401, 'unknown_key', 'invalid_token');
    assertRefused(await auth.authenticate(bearer(sha('k-alice-0123456789'))), 401, 'unknown_key', 'invalid_token');
  });

  test('400 for a key in the query string (even a valid one), two headers, or a malformed header', async () => {
    for (const param of ['api_key', 'key', 'token', 'access_token']) {
      assertRefused(await auth.authenticate({ headers: {}, url: `/mcp?${param}=k-alice-0123456789` }), 400, 'query_credential', 'invalid_request');
    }
    assertRefused(await auth.authenticate(bearer('k-alice-0123456789', '/mcp?api_key=k-alice-0123456789')), 400, 'query_credential', 'invalid_request');
    assertRefused(
      await auth.authenticate({ headers: { authorization: ['Bearer k-alice-0123456789', 'Bearer k-bob-0123456789'] }, url: '/mcp' }),
      400,
      'multiple_credentials',
      'invalid_request',
    );
    assertRefused(await auth.authenticate(bearer('two words')), 400, 'malformed_header', 'invalid_request');
  });

  test('refusals never echo the credential', async () => {
    const result = await auth.authenticate(bearer('CANARY-secret-4711'));
    assert.ok(!result.ok);
    assert.doesNotMatch(JSON.stringify(result), /CANARY/);
  });
});

describe('auth mode jwt (OAuth 2.1 resource server)', () => {
  let jose: Jose;
  let jwks: Server;
  let jwksHits = 0;
  let issuer: string;
  let rsa: { privateKey: CryptoKey; publicKey: CryptoKey };
  let ec: { privateKey: CryptoKey; publicKey: CryptoKey };
  let jwtConfig: JwtConfig;
  let auth: AuthService;
  let close: () => Promise<void>;

  before(async () => {
    jose = await import('jose');
    rsa = await jose.generateKeyPair('RS256');
    ec = await jose.generateKeyPair('ES256');
    const keys: JWK[] = [
      { ...(await jose.exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await jose.exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    jwks = createServer((req, res) => {
      jwksHits++;
      res.writeHead(req.url === '/jwks' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/`;
    jwtConfig = {
      issuer,
      audience: AUDIENCE,
      jwksUri: `${issuer}jwks`,
      groupsClaim: 'groups',
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      clockToleranceSeconds: 30,
    };
    ({ auth, close } = await authService({ mode: 'jwt', allowInsecure: false, jwt: jwtConfig }));
  });

  after(async () => {
    await close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  const now = () => Math.floor(Date.now() / 1000);

  /** A token as the issuer would sign it; `claims` and `header` override the defaults. */
  async function token(claims: JWTPayload = {}, header: Record<string, unknown> = {}, key?: CryptoKey | Uint8Array): Promise<string> {
    const payload: JWTPayload = { iss: issuer, aud: AUDIENCE, sub: 'alice', iat: now(), exp: now() + 300, groups: ['readers'], ...claims };
    for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
    return new jose.SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'rsa-1', typ: 'JWT', ...header }).sign(key ?? rsa.privateKey);
  }

  test('a valid token is its subject with its groups; RS256 and ES256 both verify', async () => {
    assert.deepEqual(await auth.authenticate(bearer(await token())), { ok: true, principal: { id: 'alice', groups: ['readers'] } });
    const es = await token({ sub: 'carol', groups: ['ops', 'readers'] }, { alg: 'ES256', kid: 'ec-1' }, ec.privateKey);
    assert.deepEqual(await auth.authenticate(bearer(es)), { ok: true, principal: { id: 'carol', groups: ['ops', 'readers'] } });
    assert.deepEqual(await auth.authenticate(bearer(await token({ groups: undefined }))), { ok: true, principal: { id: 'alice', groups: [] } });
  });

  test('the key set is fetched once and cached, not per request', async () => {
    const before = jwksHits;
    for (let i = 0; i < 5; i++) assert.equal((await auth.authenticate(bearer(await token()))).ok, true);
    assert.equal(jwksHits, before);
  });

  test('401 without a token names the RFC 9728 metadata and no error', async () => {
    const result = await auth.authenticate({ headers: {}, url: '/mcp' });
    assertRefused(result, 401, 'missing');
    assert.ok(!result.ok && result.wwwAuthenticate === `Bearer realm="centralmcp-router", resource_metadata="${METADATA_URL}"`);
  });

  test('wrong audience (RFC 8707) and wrong issuer are refused', async () => {
    const wrongAud = await auth.authenticate(bearer(await token({ aud: 'https://other-service.example.com/mcp' })));
    assertRefused(wrongAud, 401, 'wrong_audience', 'invalid_token');
    assert.ok(!wrongAud.ok && wrongAud.wwwAuthenticate.includes(`resource_metadata="${METADATA_URL}"`));
    assertRefused(await auth.authenticate(bearer(await token({ iss: 'https://evil.example.com/' }))), 401, 'wrong_issuer', 'invalid_token');
    assertRefused(await auth.authenticate(bearer(await token({ iss: issuer.slice(0, -1) }))), 401, 'wrong_issuer', 'invalid_token');
  });

  test('exp and nbf are checked with the configured skew', async () => {
    assertRefused(await auth.authenticate(bearer(await token({ exp: now() - 60 }))), 401, 'expired', 'invalid_token');
    assert.equal((await auth.authenticate(bearer(await token({ exp: now() - 10 })))).ok, true, 'within 30 s of skew');
    assertRefused(await auth.authenticate(bearer(await token({ nbf: now() + 120 }))), 401, 'not_yet_valid', 'invalid_token');
    assert.equal((await auth.authenticate(bearer(await token({ nbf: now() + 10 })))).ok, true, 'within 30 s of skew');
  });

  test('a token without exp or sub is refused', async () => {
    assertRefused(await auth.authenticate(bearer(await token({ exp: undefined }))), 401, 'missing_claim', 'invalid_token');
    assertRefused(await auth.authenticate(bearer(await token({ sub: undefined }))), 401, 'missing_claim', 'invalid_token');
  });

  test('alg none is refused', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: issuer, aud: AUDIENCE, sub: 'mallory', exp: now() + 300, groups: ['admins'] })}.`;
    const result = await auth.authenticate(bearer(unsigned));
    assertRefused(result, 401, 'algorithm_not_allowed', 'invalid_token');
  });

  test('HS256 "signed" with the RSA public key (algorithm confusion) is refused', async () => {
    const pem = await jose.exportSPKI(rsa.publicKey);
    for (const secret of [new TextEncoder().encode(pem), Buffer.from(JSON.stringify(await jose.exportJWK(rsa.publicKey)))]) {
      const forged = await token({ sub: 'mallory', groups: ['admins'] }, { alg: 'HS256', kid: 'rsa-1' }, secret);
      assertRefused(await auth.authenticate(bearer(forged)), 401, 'algorithm_not_allowed', 'invalid_token');
    }
  });

  test('an unknown kid, or a known kid with another key, is refused', async () => {
    const stranger = await jose.generateKeyPair('RS256');
    const before = jwksHits;
    assertRefused(await auth.authenticate(bearer(await token({}, { kid: 'rotated-away' }, stranger.privateKey))), 401, 'unknown_signing_key', 'invalid_token');
    assert.ok(jwksHits - before <= 1, 'an unseen kid re-fetches the key set at most once per cooldown');
    assertRefused(await auth.authenticate(bearer(await token({}, {}, stranger.privateKey))), 401, 'bad_signature', 'invalid_token');
    const tampered = (await token()).split('.');
    tampered[1] = Buffer.from(JSON.stringify({ iss: issuer, aud: AUDIENCE, sub: 'mallory', exp: now() + 300 })).toString('base64url');
    assertRefused(await auth.authenticate(bearer(tampered.join('.'))), 401, 'bad_signature', 'invalid_token');
  });

  test('a token in the query string is refused with 400, even a valid one', async () => {
    const valid = await token();
    assertRefused(await auth.authenticate({ headers: {}, url: `/mcp?access_token=${valid}` }), 400, 'query_credential', 'invalid_request');
    assertRefused(await auth.authenticate(bearer(valid, `/mcp?token=${valid}`)), 400, 'query_credential', 'invalid_request');
  });

  test('garbage is malformed, not a crash', async () => {
    assertRefused(await auth.authenticate(bearer('not-a-jwt')), 401, 'malformed_token', 'invalid_token');
    assertRefused(await auth.authenticate(bearer('a.b.c')), 401, 'malformed_token', 'invalid_token');
  });

  test('groups from a configured claim, as a space-separated string', async () => {
    const other = await authService({ mode: 'jwt', allowInsecure: false, jwt: { ...jwtConfig, groupsClaim: 'roles' } });
    try {
      const result = await other.auth.authenticate(bearer(await token({ roles: 'readers  ops', groups: ['ignored'] })));
      assert.deepEqual(result, { ok: true, principal: { id: 'alice', groups: ['readers', 'ops'] } });
    } finally {
      await other.close();
    }
  });

  test('an unreachable key set is a 401, not a crash or a pass', async () => {
    const down = await authService({ mode: 'jwt', allowInsecure: false, jwt: { ...jwtConfig, jwksUri: 'http://127.0.0.1:1/jwks' } });
    try {
      assertRefused(await down.auth.authenticate(bearer(await token())), 401, 'key_set_unavailable', 'invalid_token');
    } finally {
      await down.close();
    }
  });

  describe('RFC 9728 protected resource metadata', () => {
    async function app(authConfig: AuthConfig): Promise<NestFastifyApplication> {
      const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(testConfig([], { auth: authConfig })), AuthModule] }).compile();
      const nest = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
      await nest.init();
      await nest.getHttpAdapter().getInstance().ready();
      return nest;
    }

    test('served in jwt mode at the well-known path and its /mcp form', async () => {
      const nest = await app({ mode: 'jwt', allowInsecure: false, jwt: jwtConfig });
      try {
        for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
          const res = await nest.getHttpAdapter().getInstance().inject({ method: 'GET', url });
          assert.equal(res.statusCode, 200, url);
          assert.match(String(res.headers['content-type']), /application\/json/);
          assert.deepEqual(res.json(), {
            resource: AUDIENCE,
            authorization_servers: [issuer],
            bearer_methods_supported: ['header'],
            resource_name: 'CentralMCP Router',
          });
        }
      } finally {
        await nest.close();
      }
    });

    test('404 in the other modes', async () => {
      const nest = await app({ mode: 'none', allowInsecure: false });
      try {
        const res = await nest.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
        assert.equal(res.statusCode, 404);
      } finally {
        await nest.close();
      }
    });
  });
});
