import type { Channel, RiskLevel } from '@rp/contracts';

/**
 * One channel of one wallet, registered by one account. Secrets (`botToken`, `webhookUrl`) are stored sealed
 * (AES-256-GCM, see `secret-box.ts`); `destination` fields hold what a delivery needs, never in clear for secrets.
 */
export interface ChannelConfigRecord {
  id: string;
  accountId: string;
  walletAddress: string;
  channel: Channel;
  enabled: boolean;
  minRiskLevel: RiskLevel;
  /** messenger: chat id as given (`123`, `-100123`, `@channel`). */
  chatId?: string;
  /** messenger: sealed bot token; absent means the server's default bot. */
  botToken?: string;
  /** channelhook: sealed webhook URL. */
  webhookUrl?: string;
  /** email address. */
  email?: string;
  /**
   * The destination's secret-free key (its delivery lane, `destinationKeyOf`), computed in clear when a secret was
   * registered (an own bot token, a webhook URL): the intake reads it instead of opening the secret, so a secret is
   * opened once per alert, by the delivery. Absent without a secret, and on records made before it existed (then
   * the intake computes it).
   */
  destinationKey?: string;
  /** Why the channel was disabled by the service (bot blocked), if it was. */
  disabledReason?: string;
  createdAt: Date;
  updatedAt: Date;
}
