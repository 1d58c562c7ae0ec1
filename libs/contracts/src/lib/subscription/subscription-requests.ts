import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBase64,
  IsEmail,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsLedgerAccountAddress } from '../validation/ledger-validators';
import { PARTNER_NAME_PATTERN } from './account';

const PROJECT_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._\-/()&+]*$/u;

/** Who buys the key: the status route finds the subscription by this email. */
export class SubscribeRequest {
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(254)
  email!: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(PROJECT_NAME, { message: 'projectName must be letters, digits, spaces and ._-/()&+' })
  projectName?: string;
}

export class PrepareRequest {
  /** The paying wallet (G-address): the transfer's `from`. */
  @IsLedgerAccountAddress()
  walletAddress!: string;
}

/** The prepared payment, signed by the wallet, plus the buyer's details. */
export class CompleteRequest extends SubscribeRequest {
  @IsLedgerAccountAddress()
  walletAddress!: string;

  /** `txJson` exactly as `prepare` returned it. */
  @IsString()
  @MaxLength(20_000)
  txJson!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @IsBase64({}, { each: true, message: 'each value in preimageXdrs must be base64' })
  @MaxLength(4_000, { each: true })
  preimageXdrs!: string[];

  /** base64 ed25519 signatures of sha256(preimage i), in the order of `preimageXdrs`. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @IsBase64({}, { each: true, message: 'each value in signedAuthEntries must be base64' })
  @MaxLength(200, { each: true })
  signedAuthEntries!: string[];

  /** The signature expiration ledger `prepare` returned. */
  @IsInt()
  @Min(1)
  @Max(4_294_967_295)
  maxLedger!: number;
}

export class SubscriptionStatusQuery {
  @IsEmail({}, { message: 'email must be a valid email address' })
  @MaxLength(254)
  email!: string;
}

/** An operator's key for a partner: custom rate, burst and duration, no payment. */
export class PartnerKeyRequest extends SubscribeRequest {
  /** Requests per minute (the bucket's refill). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  rateLimit!: number;

  /** Bucket capacity: how many calls may come at once. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  burst!: number;

  @IsInt()
  @Min(1)
  @Max(3650)
  durationDays!: number;

  /**
   * The partner's name: the key's account is `partner:<partner>`, shared by every key issued with that name.
   * Omitted: the key is an account of its own (`partner:key-<keyId>`).
   */
  @IsOptional()
  @IsString()
  @Matches(PARTNER_NAME_PATTERN, {
    message: 'partner must be 1 to 64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  partner?: string;
}
