export * from './ledger-wallet';
export { InvalidMnemonicError, isValidMnemonic } from './mnemonic';
export { InvalidDerivationIndexError } from './slip10';
export * from './keypairs';
