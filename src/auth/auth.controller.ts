import { Controller, Get, Header, NotFoundException } from '@nestjs/common';
import { AuthService } from './auth.service';
import { METADATA_ROUTES, type ProtectedResourceMetadata } from './domain/bearer';

/**
 * RFC 9728 protected resource metadata: how an MCP client learns which authorization server issues
 * tokens for this router (MCP authorization spec). Public and cacheable: it holds no secret. Only
 * jwt mode has an authorization server to name; otherwise 404.
 */
@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Get([...METADATA_ROUTES])
  @Header('cache-control', 'public, max-age=3600')
  // Browser-based clients (MCP Inspector) fetch it from another origin.
  @Header('access-control-allow-origin', '*')
  metadata(): ProtectedResourceMetadata {
    const metadata = this.auth.protectedResourceMetadata();
    if (!metadata) throw new NotFoundException();
    return metadata;
  }
}
