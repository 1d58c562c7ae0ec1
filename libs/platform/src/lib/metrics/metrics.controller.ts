import { Controller, Get, Header } from '@nestjs/common';
import { Registry } from 'prom-client';

@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
