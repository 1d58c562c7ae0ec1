export * from './app-process';
export * from './launch-plan';
export * from './launcher';
export * from './ports';
export * from './redis';
export * from './settings-cli';
export * from './buy-key';
export * from './helm-readme';
