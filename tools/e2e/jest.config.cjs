module.exports = { displayName: 'e2e', preset: '../../jest.preset.js', rootDir: __dirname };
