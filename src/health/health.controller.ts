import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { ReadinessIndicator } from './readiness.indicator';

/** Kubernetes probes (architecture §2). Open, like metrics (architecture §10). */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: ReadinessIndicator,
  ) {}

  /** 200 while the process answers. No dependency checks: a backend outage must never restart pods. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** 200 when required backends are up, the catalog is loaded and not draining; 503 with details otherwise. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.readiness.check()]);
  }
}
