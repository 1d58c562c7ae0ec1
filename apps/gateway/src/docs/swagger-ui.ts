import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import helmet from 'helmet';
import { API_TITLE } from './gateway-document';

export const DOCS_PATH = '/api/docs';
export const MERGED_DOCUMENT_PATH = `${DOCS_PATH}/openapi.json`;

/** Files of swagger-ui-dist (the copy @nestjs/swagger ships) the page may load; nothing else of it is served. */
export const SWAGGER_UI_ASSETS: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['swagger-ui.css.map', 'application/json'],
  ['swagger-ui-bundle.js.map', 'application/json'],
]);

/**
 * The swagger-ui-dist folder @nestjs/swagger itself serves from (it does not export that helper), resolved from
 * @nestjs/swagger's own location so both use one copy. Node's resolver, not the bundler's: the file is read at run
 * time from the installed package.
 */
export function swaggerUiAssetsDirectory(): string {
  const resolve = createRequire(__filename).resolve;
  const swagger = dirname(resolve('@nestjs/swagger'));
  return dirname(resolve('swagger-ui-dist/package.json', { paths: [swagger] }));
}

// Every script is a file of our origin, so helmet's `script-src 'self'` holds and no inline script is needed.
export const SWAGGER_UI_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${API_TITLE}</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/swagger-ui-init.js"></script>
</body>
</html>
`;

// validatorUrl null: the default badge would send our document's address to a third-party validator.
export const SWAGGER_UI_INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '${MERGED_DOCUMENT_PATH}',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * The page's Content-Security-Policy: helmet's defaults (what every other answer carries) without
 * `upgrade-insecure-requests`, which would make browsers fetch the page's own scripts over https when the gateway
 * is reached over plain http (a LAN address, docker compose), leaving the page blank.
 */
export const SWAGGER_UI_CSP = Object.entries(helmet.contentSecurityPolicy.getDefaultDirectives())
  .filter(([name]) => name !== 'upgrade-insecure-requests')
  .map(([name, values]) => [name, ...[...values].filter((value) => typeof value === 'string')].join(' '))
  .join(';');
