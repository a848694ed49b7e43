// reference.js - renders the API reference from the server's own OpenAPI
// document (openapi.json, generated from the repository's openapi.yaml) with
// Swagger UI, loaded as a classic script from static/vendor/ (npm
// swagger-ui-dist, pinned in package-lock.json).  A separate file because the
// Content-Security-Policy allows no inline script.
'use strict';

window.addEventListener('DOMContentLoaded', () => {
        const status = document.getElementById('reference-status');
        if (typeof window.SwaggerUIBundle !== 'function') {
                status.textContent = 'The reference viewer did not load; the document itself is at openapi.yaml.';
                return;
        }
        window.SwaggerUIBundle({
                // Relative, so it also works under a sub-path (GPUPLAN_BASE_PATH, nginx's /gpuplan/).
                url: 'openapi.json',
                domNode: document.getElementById('reference'),
                deepLinking: true,
                // The page's CSP forbids third-party hosts: no online validator badge.
                validatorUrl: null,
                onComplete: () => status.remove(),
        });
});
