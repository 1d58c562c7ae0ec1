import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CallerIdentity,
  RegisterChannelhookRequest,
  RegisterEmailRequest,
  RegisterMessengerRequest,
  WalletChannelQuery,
  WalletQuery,
} from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { type ConfigurationView, accountOf } from './configuration-view';
import { ConfigsService } from './configs.service';

@ApiTags('notifications')
@ApiKeyAuth()
@ApiErrorResponse(400, 'A field is invalid (details name it)')
@ApiErrorResponse(401, 'No API key')
@Controller('api/v1/rms/notifications')
export class ConfigsController {
  constructor(private readonly configs: ConfigsService) {}

  @Post('messenger')
  @ApiOperation({ summary: 'Register (or replace) the messenger channel of a wallet; registering enables it' })
  messenger(@Caller() caller: CallerIdentity, @Body() body: RegisterMessengerRequest): Promise<ConfigurationView> {
    return this.configs.registerMessenger(accountOf(caller), body);
  }

  @Post('channelhook')
  @ApiOperation({ summary: 'Register the channelhook (Discord or Slack webhook) channel of a wallet' })
  channelhook(@Caller() caller: CallerIdentity, @Body() body: RegisterChannelhookRequest): Promise<ConfigurationView> {
    return this.configs.registerChannelhook(accountOf(caller), body);
  }

  @Post('email')
  @ApiOperation({ summary: 'Register the email channel of a wallet' })
  email(@Caller() caller: CallerIdentity, @Body() body: RegisterEmailRequest): Promise<ConfigurationView> {
    return this.configs.registerEmail(accountOf(caller), body);
  }

  @Get()
  @ApiOperation({ summary: "The wallet's configuration registered by your account (secrets masked)" })
  @ApiErrorResponse(404, 'Nothing registered for this wallet by your account')
  get(@Caller() caller: CallerIdentity, @Query() query: WalletQuery): Promise<ConfigurationView> {
    return this.configs.view(accountOf(caller), query.walletAddress);
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete one channel of the wallet' })
  @ApiErrorResponse(404, 'That channel is not registered for this wallet by your account')
  remove(@Caller() caller: CallerIdentity, @Query() query: WalletChannelQuery) {
    return this.configs.remove(accountOf(caller), query.walletAddress, query.channel);
  }
}
