import { StrKey } from '@stellar/stellar-sdk';
import { BadRequestError } from '../server/http-io';
import { MAX_AGE_SECONDS, type OracleKeeper } from './oracle-keeper';

type Body = Record<string, unknown>;
export interface OracleFeedRoute {
  readonly method: string;
  readonly pattern: RegExp;
  readonly run: (body: Body, params: string[]) => unknown;
}

/**
 * Control routes of the oracle keeper: `GET /control/oracles/feeds` (every oracle's prices, their age at the latest
 * close and whether their feed runs) and `POST /control/oracles/:id/feed` `{running, asset?, ageSeconds?}` to stop
 * (optionally stamping the stopped prices `ageSeconds` before the latest close) or restart a whole oracle or one
 * asset's feed.
 */
export function oracleFeedRoutes(keeper: OracleKeeper): OracleFeedRoute[] {
  return [
    { method: 'GET', pattern: /^\/control\/oracles\/feeds$/, run: () => keeper.feeds() },
    {
      method: 'POST',
      pattern: /^\/control\/oracles\/(C[A-Z2-7]{55})\/feed$/,
      run: (body, [oracle]) => {
        if (typeof body.running !== 'boolean') throw new BadRequestError('running must be true or false');
        const asset = body.asset === undefined ? undefined : contractId(body.asset);
        if (body.running) {
          if (body.ageSeconds !== undefined) throw new BadRequestError('ageSeconds is for stopping a feed only');
          return keeper.start(oracle, asset);
        }
        return keeper.stop(oracle, { asset, ageSeconds: ageSeconds(body.ageSeconds) });
      },
    },
  ];
}

function contractId(value: unknown): string {
  if (typeof value !== 'string' || !StrKey.isValidContract(value))
    throw new BadRequestError('asset must be a C-address');
  return value;
}

function ageSeconds(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_AGE_SECONDS) {
    throw new BadRequestError(`ageSeconds must be an integer between 0 and ${MAX_AGE_SECONDS}`);
  }
  return value;
}
