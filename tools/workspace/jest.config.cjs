module.exports = { displayName: 'workspace', preset: '../../jest.preset.js', rootDir: __dirname };
