#!/usr/bin/env node
// vendor.mjs - copy the page's third-party browser files from node_modules
// (installed from the lock file by `npm ci`) into static/vendor/, which is
// generated and git-ignored, and publish the API description: openapi.yaml
// is copied byte for byte to static/openapi.yaml and converted to
// static/openapi.json (both git-ignored), so the service serves the
// repository's own document at /openapi.yaml and /openapi.json.  Nothing here is edited by hand: bump the
// version in package.json, run `npm install`, commit the lock file, and run
// `npm run vendor` again.
//
// Chart.js ships an ES module build too, but it imports the bare specifier
// '@kurkle/color', which a browser can only resolve through an inline import
// map; the page's Content-Security-Policy forbids inline scripts, so the
// self-contained UMD build is served instead and read from window.Chart.

import { copyFileSync, mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'static', 'vendor');

const files = [
        // [package, file inside the package, name under static/vendor]
        ['chart.js', 'dist/chart.umd.min.js', 'chart.umd.min.js'],
        ['chart.js', 'dist/chart.umd.min.js.map', 'chart.umd.min.js.map'],
        ['chart.js', 'LICENSE.md', 'chart.js.LICENSE.md'],
        // The API reference view (static/reference.html).
        ['swagger-ui-dist', 'swagger-ui-bundle.js', 'swagger-ui-bundle.js'],
        ['swagger-ui-dist', 'swagger-ui.css', 'swagger-ui.css'],
        ['swagger-ui-dist', 'LICENSE', 'swagger-ui.LICENSE'],
];

mkdirSync(out, { recursive: true });
const manifest = {};
for (const [pkg, rel, name] of files) {
        const src = join(root, 'node_modules', pkg, rel);
        if (!existsSync(src)) {
                console.error(`vendor: ${src} is missing; run "npm ci" first`);
                process.exit(1);
        }
        copyFileSync(src, join(out, name));
        const version = JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
        manifest[name] = `${pkg}@${version}`;
}
writeFileSync(join(out, 'VERSIONS.json'), JSON.stringify(manifest, null, 2) + '\n');

// The API description: the YAML as committed, and the same document as JSON
// for clients that want it (code generators, Swagger UI).
const spec = readFileSync(join(root, 'openapi.yaml'));
writeFileSync(join(root, 'static', 'openapi.yaml'), spec);
writeFileSync(join(root, 'static', 'openapi.json'),
        JSON.stringify(parseYaml(spec.toString('utf8')), null, 1) + '\n');
console.log(`vendor: copied ${files.length} files into static/vendor/ (${Object.values(manifest)[0]})`);
