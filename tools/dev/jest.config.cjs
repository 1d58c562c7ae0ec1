module.exports = { displayName: 'dev', preset: '../../jest.preset.js', rootDir: __dirname };
