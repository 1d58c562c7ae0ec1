import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type CallerIdentity,
  RegisterChannelhookRequest,
  RegisterEmailRequest,
  RegisterMessengerRequest,
  WalletChannelQuery,
  WalletQuery,
} from '@rp/contracts';
import { ApiErrorResponse, ApiKeyAuth, Caller } from '@rp/platform';
import { CONFIGURATION_SCHEMA, DELETED_SCHEMA } from '../openapi/notification-schemas';
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
  @ApiOperation({
    operationId: 'registerMessenger',
    summary: 'Register (or replace) the messenger channel of a wallet; registering enables it',
  })
  @ApiResponse({ status: 201, description: "The wallet's configuration, secrets masked", schema: CONFIGURATION_SCHEMA })
  messenger(@Caller() caller: CallerIdentity, @Body() body: RegisterMessengerRequest): Promise<ConfigurationView> {
    return this.configs.registerMessenger(accountOf(caller), body);
  }

  @Post('channelhook')
  @ApiOperation({
    operationId: 'registerChannelhook',
    summary: 'Register the channelhook (Discord or Slack webhook) channel of a wallet',
  })
  @ApiResponse({ status: 201, description: "The wallet's configuration, secrets masked", schema: CONFIGURATION_SCHEMA })
  channelhook(@Caller() caller: CallerIdentity, @Body() body: RegisterChannelhookRequest): Promise<ConfigurationView> {
    return this.configs.registerChannelhook(accountOf(caller), body);
  }

  @Post('email')
  @ApiOperation({ operationId: 'registerEmail', summary: 'Register the email channel of a wallet' })
  @ApiResponse({ status: 201, description: "The wallet's configuration, secrets masked", schema: CONFIGURATION_SCHEMA })
  email(@Caller() caller: CallerIdentity, @Body() body: RegisterEmailRequest): Promise<ConfigurationView> {
    return this.configs.registerEmail(accountOf(caller), body);
  }

  @Get()
  @ApiOperation({
    operationId: 'getNotificationConfig',
    summary: "The wallet's configuration registered by your account (secrets masked)",
  })
  @ApiOkResponse({ description: 'The configuration, secrets masked', schema: CONFIGURATION_SCHEMA })
  @ApiErrorResponse(404, 'Nothing registered for this wallet by your account')
  get(@Caller() caller: CallerIdentity, @Query() query: WalletQuery): Promise<ConfigurationView> {
    return this.configs.view(accountOf(caller), query.walletAddress);
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ operationId: 'deleteNotificationChannel', summary: 'Delete one channel of the wallet' })
  @ApiOkResponse({ description: 'Deleted', schema: DELETED_SCHEMA })
  @ApiErrorResponse(404, 'That channel is not registered for this wallet by your account')
  remove(@Caller() caller: CallerIdentity, @Query() query: WalletChannelQuery) {
    return this.configs.remove(accountOf(caller), query.walletAddress, query.channel);
  }
}
