module.exports = { displayName: 'txb', preset: '../../jest.preset.js', rootDir: __dirname };
