// The service serves its own API description: /openapi.yaml is the
// repository's openapi.yaml byte for byte, /openapi.json the same document as
// JSON, also under a base path, and the reference view's files are there.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

import { ROOT, get, startServer } from './lib.mjs';

const repoYaml = readFileSync(join(ROOT, 'openapi.yaml'), 'utf8');

test('/openapi.yaml is the repository\'s document, byte for byte', async () => {
        const r = await get('/openapi.yaml');
        assert.equal(r.status, 200);
        assert.equal(r.contentType, 'application/yaml');
        assert.equal(r.text, repoYaml);
        assert.match(r.headers.get('etag'), /^"[^"]+"$/);
        const again = await get('/openapi.yaml', { headers: { 'If-None-Match': r.headers.get('etag') } });
        assert.equal(again.status, 304);
});

test('/openapi.json is the same document as JSON', async () => {
        const r = await get('/openapi.json');
        assert.equal(r.status, 200);
        assert.equal(r.contentType, 'application/json');
        assert.deepEqual(r.json, parseYaml(repoYaml));
        // A client generator needs the operations: spot-check one the notebooks use.
        assert.ok(r.json.paths['/api/v1/estimate'].post.requestBody);
});

test('both are served under a base path, and the reference view\'s files exist', async () => {
        const srv = await startServer({ env: { GPUPLAN_BASE_PATH: '/gpuplan' } });
        try {
                const y = await get('/gpuplan/openapi.yaml', { base: srv.url, validate: false });
                assert.equal(y.status, 200);
                assert.equal(y.text, repoYaml);
                const j = await get('/gpuplan/openapi.json', { base: srv.url, validate: false });
                assert.deepEqual(j.json, parseYaml(repoYaml));
                for (const f of ['/gpuplan/reference.html', '/gpuplan/js/reference.js',
                        '/gpuplan/vendor/swagger-ui-bundle.js', '/gpuplan/vendor/swagger-ui.css']) {
                        const r = await get(f, { base: srv.url, validate: false });
                        assert.equal(r.status, 200, f);
                }
        } finally {
                await srv.stop();
        }
});
