import { IsDuration, IsHttpUrl, ServiceConfig } from '@rp/platform';

/** The gateway owns `/api/v1` and forwards each prefix to the service that owns it. */
export class GatewayConfig extends ServiceConfig {
  override PORT = 3000;

  /** Owner of `/api/v1/keys/**`. */
  @IsHttpUrl()
  SUBSCRIPTION_URL = 'http://127.0.0.1:3001';

  /** Owner of `/api/v1/txb/**`. */
  @IsHttpUrl()
  TXB_URL = 'http://127.0.0.1:3002';

  /** Owner of `/api/v1/rms/**`. */
  @IsHttpUrl()
  NOTIFICATIONS_URL = 'http://127.0.0.1:3003';

  /** A service that stays silent this long is answered for with 504. */
  @IsDuration(100)
  UPSTREAM_TIMEOUT_MS = 30_000;
}
