import { SLIPPAGE_BPS } from '@rp/contracts';
import { AppConfig, IsDuration, IsHttpUrl, Required, Secret, withDatabase, withRedis } from '@rp/platform';
import { IsBoolean, IsEmail, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

const slippageMessage = `$property must be an integer number of basis points between ${SLIPPAGE_BPS.min} and ${SLIPPAGE_BPS.max}`;

/**
 * The risk agent: one process per managed wallet. Redis is optional here (without it the cooldown and lock
 * live in the database), so unlike the services it has no Redis host by default. It takes no calls from the
 * gateway, so it has no `INTERNAL_TOKEN` (and no signature check on its `/status`).
 */
export class AgentConfig extends withDatabase(withRedis(AppConfig)) {
  override PORT = 8080;

  override REDIS_HOST?: string = undefined;

  /** BIP-39 mnemonic of the managed wallet (SEP-5 path m/44'/148'/0'). The most sensitive secret there is. */
  @Required()
  @Matches(/^[a-z]+( [a-z]+){11}( [a-z]+){0,12}$/, {
    message: '$property must be 12 to 24 lower-case words separated by single spaces',
  })
  @Secret()
  LEDGER_MNEMONIC!: string;

  @Required()
  @IsHttpUrl()
  CONTRACT_RPC_URL!: string;

  @IsDuration(500)
  POLL_INTERVAL_MS = 5000;

  /** Slippage tolerance of unwind swaps, in basis points. */
  @IsInt({ message: slippageMessage })
  @Min(SLIPPAGE_BPS.min, { message: slippageMessage })
  @Max(SLIPPAGE_BPS.max, { message: slippageMessage })
  SLIPPAGE = 100;

  /** Seconds during which a second close of the same position is refused. */
  @IsDuration(1)
  CLOSE_COOLDOWN_TTL = 300;

  /** The service's gateway. There is no hosted endpoint yet: the default is the local gateway of `npm start`. */
  @IsHttpUrl()
  SERVICE_BASE_URL = 'http://127.0.0.1:3000';

  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  SERVICE_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  SERVICE_PROJECT_NAME?: string;

  /** Play the service's answers from an in-process mock (a position drifting into danger). */
  @IsBoolean({ message: '$property must be true or false' })
  SERVICE_MOCK = false;
}
