/**
 * Stellar access for every service and the agent: networks, strkeys, SEP-5 wallets, the Soroban RPC client,
 * SEP-41 tokens, Blend v2 reads and health factors, and transaction build/simulate/submit/poll.
 * An empty shell until the ledger capability lands (issue 3); the workspace wiring, tags and boundaries are in place.
 */
export {};
