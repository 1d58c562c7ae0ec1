export { LEDGER_ENTRIES_PER_REQUEST, LedgerRpc, type LedgerRpcOptions } from './ledger-rpc';
export { LedgerRpcError, type LedgerRpcErrorKind, NetworkMismatchError } from './rpc-errors';
export { RPC_DURATION_METRIC, type RpcOutcome } from './rpc-metrics';
