import type {
  BuildPreview,
  BuildResponse,
  BuiltTransaction,
  ErrorDetail,
  ProposalStatus,
  ProposalView,
  TxbWarning,
} from '@rp/contracts';
import type { Stack } from '@rp/dev';

/** Any answer of txb through the gateway, success or error envelope, with the fields a test reads. */
export interface TxbBody {
  success?: boolean;
  status?: number | string;
  code?: string;
  error?: string;
  details?: ErrorDetail[];
  transaction?: BuiltTransaction;
  proposal?: BuildResponse['proposal'];
  warnings?: TxbWarning[];
  preview?: BuildPreview;
  proposals?: ProposalView[];
  total?: number;
  txHash?: string;
  resultCode?: string;
  contractError?: { code: number; name?: string };
  operations?: number;
  service?: string;
  proposalsInMemory?: number;
}

export interface TxbAnswer {
  status: number;
  body: TxbBody;
}

export interface TxbCalls {
  /** A call through the stack's gateway (or `base`) with the key. */
  call(key: string, method: 'GET' | 'POST', path: string, body?: unknown, base?: string): Promise<TxbAnswer>;
  /** The proposal once it has one of `statuses` (polled through the gateway; ledgers close on their own). */
  proposalIn(
    key: string,
    wallet: string,
    id: string,
    statuses: readonly ProposalStatus[],
    base?: string,
  ): Promise<ProposalView>;
}

/** The transaction builder's routes of a stack, typed as the txb suites read them. */
export function txbCalls(stack: Stack): TxbCalls {
  const call: TxbCalls['call'] = async (key, method, path, body, base = stack.api.url) => {
    const answer = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    return { status: answer.status, body: text ? (JSON.parse(text) as TxbBody) : {} };
  };
  return {
    call,
    async proposalIn(key, wallet, id, statuses, base) {
      for (let round = 0; round < 600; round += 1) {
        const listed = await call(key, 'GET', `/txb/proposals?wallet=${wallet}`, undefined, base);
        const found = listed.body.proposals?.find((p) => p.id === id);
        if (found && statuses.includes(found.status)) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`proposal ${id} did not reach ${statuses.join('/')}`);
    },
  };
}
