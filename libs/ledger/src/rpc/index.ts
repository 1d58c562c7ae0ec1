export { LEDGER_ENTRIES_PER_REQUEST, LedgerRpc, type LedgerRpcOptions } from './ledger-rpc';
export { LedgerRpcError, type LedgerRpcErrorKind, NetworkMismatchError } from './rpc-errors';
export { RPC_DURATION_METRIC, type RpcOutcome } from './rpc-metrics';
export { type EndpointView, MAX_REST_MS, type RestReason } from './endpoint-pool';
export { RPC_ENDPOINT_METRIC, endpointGaugeText } from './rpc-metrics';
export { RpcUrlListError, isRpcUrlList, parseRpcUrlList } from './rpc-url-list';
