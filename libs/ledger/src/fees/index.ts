export * from './close-fee';
