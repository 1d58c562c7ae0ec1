// Production bundle of one Nest app: our code and libraries compiled by tsc (decorator metadata intact),
// node_modules left external and listed in a generated package.json for the image.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

module.exports = function nodeAppWebpackConfig(appRoot, appName) {
  return {
    output: { path: join(__dirname, '../../dist/apps', appName), clean: true },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: join(appRoot, 'src/main.ts'),
        tsConfig: join(appRoot, 'tsconfig.app.json'),
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        sourceMap: true,
      }),
    ],
  };
};
