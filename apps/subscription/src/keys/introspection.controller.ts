import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { type KeyIntrospection, looksLikeApiKey } from '@rp/contracts';
import { IsString, MaxLength } from 'class-validator';
import { KeysService } from './keys.service';

export class IntrospectRequest {
  @IsString()
  @MaxLength(200)
  apiKey!: string;
}

/**
 * For the gateway only: outside `/api/v1`, so the gateway never forwards it, and behind the internal token
 * like every route of a service when `INTERNAL_TOKEN` is set.
 */
@Controller('internal/keys')
export class IntrospectionController {
  constructor(private readonly keys: KeysService) {}

  @Post('introspect')
  @HttpCode(200)
  introspect(@Body() body: IntrospectRequest): Promise<KeyIntrospection> | KeyIntrospection {
    if (!looksLikeApiKey(body.apiKey)) return { active: false, reason: 'unknown' };
    return this.keys.introspect(body.apiKey);
  }
}
