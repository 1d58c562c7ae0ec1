export { SWAP_RECEIVER_CONTRACT, quoteSwap, swapReceiverContract } from './swap-receiver.contract';
