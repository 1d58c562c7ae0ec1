module.exports = { displayName: 'sandbox', preset: '../../jest.preset.js', rootDir: __dirname };
