import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { ErrorCode } from '@rp/contracts';
import { ApiError } from '../errors/api-error';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

const CHECK_TIMEOUT_MS = 2000;

/** `/health` and `/health/live`: the process serves HTTP. `/health/ready`: every dependency answers within 2 s. */
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
  ) {}

  /** `/health` is liveness too: the spec's agent endpoint, and what simple load balancers probe. */
  @Get(['', 'live'])
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(): Promise<{ status: 'ok'; checks: Record<string, { status: string }> }> {
    const results = await Promise.all(this.checks.map((check) => this.probe(check)));
    const down = results.filter((result) => Object.values(result)[0].status !== 'up');
    if (down.length > 0) {
      const details = down.map((result) => {
        const [name, state] = Object.entries(result)[0];
        return { field: name, message: String(state['message'] ?? 'not answering') };
      });
      this.logger.warn({ details }, 'not ready');
      throw new ApiError(503, ErrorCode.NOT_READY, `Not ready: ${details.map((d) => d.field).join(', ')}`, {
        details,
      });
    }
    const checks: Record<string, { status: string }> = {};
    for (const result of results) Object.assign(checks, result);
    return { status: 'ok', checks };
  }

  private async probe(check: ReadinessCheck): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(check.name);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        check.check(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
        }),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
