import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Registry } from 'prom-client';

@Controller('metrics')
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async metrics(@Res() res: Response): Promise<void> {
    res.type(this.registry.contentType).send(await this.registry.metrics());
  }
}
