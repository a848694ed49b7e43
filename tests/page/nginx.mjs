// nginx.mjs - a private nginx on a free loopback port that serves the app
// under the /gpuplan/ sub-path, for when the test script did not start one
// (GPUPLAN_TEST_NGINX_URL unset).  The prefix is stripped by proxy_pass
// with a URI, as in the deployment's configuration.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function freePort() {
        return new Promise((resolve, reject) => {
                const s = createServer();
                s.once('error', reject);
                s.listen(0, '127.0.0.1', () => {
                        const { port } = s.address();
                        s.close(() => resolve(port));
                });
        });
}

function accepting(port) {
        return new Promise((resolve) => {
                const c = connect(port, '127.0.0.1');
                c.once('connect', () => { c.destroy(); resolve(true); });
                c.once('error', () => resolve(false));
        });
}

export async function startNginx(upstreamBase) {
        const up = new URL(upstreamBase);
        const dir = mkdtempSync(join(tmpdir(), 'gpuplan-page-nginx-'));
        const port = await freePort();
        const conf = `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 256; }
http {
        access_log off;
        client_body_temp_path ${dir}/body;
        proxy_temp_path ${dir}/proxy;
        fastcgi_temp_path ${dir}/fastcgi;
        uwsgi_temp_path ${dir}/uwsgi;
        scgi_temp_path ${dir}/scgi;
        gzip on;
        gzip_types application/json application/problem+json text/css text/javascript application/javascript;
        upstream app { server ${up.hostname}:${up.port || 80}; keepalive 8; }
        server {
                listen 127.0.0.1:${port};
                location /gpuplan/ {
                        proxy_pass http://app/;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host;
                        proxy_set_header X-Forwarded-Prefix /gpuplan;
                }
        }
}
`;
        writeFileSync(join(dir, 'nginx.conf'), conf);
        const bin = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
        const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
                { stdio: 'ignore' });
        let exited = false;
        child.on('exit', () => { exited = true; });
        for (let i = 0; i < 100 && !(await accepting(port)); i++) {
                if (exited) break;
                await new Promise((r) => setTimeout(r, 50));
        }
        if (exited || !(await accepting(port))) {
                const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
                rmSync(dir, { recursive: true, force: true });
                throw new Error(`nginx did not start: ${log}`);
        }
        return {
                url: `http://127.0.0.1:${port}/gpuplan/`,
                async stop() {
                        if (!exited) {
                                const done = new Promise((r) => child.once('exit', r));
                                child.kill('SIGQUIT');
                                await done;
                        }
                        rmSync(dir, { recursive: true, force: true });
                },
        };
}
