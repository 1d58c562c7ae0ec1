export * from './close-fee';
export * from './fee-level';
