module.exports = { displayName: 'agent', preset: '../../jest.preset.js', rootDir: __dirname };
