module.exports = { displayName: 'notifications', preset: '../../jest.preset.js', rootDir: __dirname };
