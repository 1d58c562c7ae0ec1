module.exports = require('../../tools/webpack/node-app.webpack.cjs')(__dirname, 'txb');
