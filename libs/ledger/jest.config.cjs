module.exports = { displayName: 'ledger', preset: '../../jest.preset.js', rootDir: __dirname };
