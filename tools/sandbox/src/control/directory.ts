/** What the sandbox knows by name: the accounts, tokens, oracles, pools and receivers a person or test set up. */

export interface KnownAccount {
  readonly label: string;
  readonly address: string;
  /** Demo wallets only: the SEP-5 mnemonic, shown on the page because these wallets hold sandbox money only. */
  readonly demoMnemonic?: string;
}

export interface KnownToken {
  readonly symbol: string;
  readonly contractId: string;
  readonly decimals: number;
}

export interface KnownOracle {
  readonly contractId: string;
  readonly decimals: number;
}

export interface KnownPool {
  readonly name: string;
  readonly contractId: string;
  readonly oracle: string;
  readonly reserves: readonly string[];
}

export interface KnownReceiver {
  readonly label: string;
  readonly contractId: string;
}

export class SandboxDirectory {
  readonly accounts: KnownAccount[] = [];
  readonly tokens: KnownToken[] = [];
  readonly oracles: KnownOracle[] = [];
  readonly pools: KnownPool[] = [];
  readonly receivers: KnownReceiver[] = [];
  /** The Blend pool factory stand-in every pool the setup deploys is registered with. */
  poolFactory: string | undefined;

  addAccount(account: KnownAccount): void {
    if (!this.accounts.some((known) => known.address === account.address)) this.accounts.push(account);
  }

  token(contractId: string): KnownToken | undefined {
    return this.tokens.find((token) => token.contractId === contractId || token.symbol === contractId);
  }

  pool(contractId: string): KnownPool | undefined {
    return this.pools.find((pool) => pool.contractId === contractId || pool.name === contractId);
  }

  addReserve(pool: string, asset: string): void {
    const index = this.pools.findIndex((known) => known.contractId === pool);
    if (index >= 0 && !this.pools[index].reserves.includes(asset)) {
      this.pools[index] = { ...this.pools[index], reserves: [...this.pools[index].reserves, asset] };
    }
  }

  clear(): void {
    for (const list of [this.accounts, this.tokens, this.oracles, this.pools, this.receivers]) list.length = 0;
    this.poolFactory = undefined;
  }
}
