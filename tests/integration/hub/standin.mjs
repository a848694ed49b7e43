// A stand-in for the Hugging Face Hub: the URL layout huggingface_hub and
// gpuplan read, served from the fixture files in models/.
//
//   GET /api/models/{org}/{name}                     model info (sha, gated, safetensors)
//   GET /api/models/{org}/{name}/revision/{rev}      the same at a revision (branch or sha)
//   GET /{org}/{name}/resolve/{rev}/config.json      302 to the content-addressed copy,
//   GET /api/resolve-cache/models/{org}/{name}/{sha}/config.json   which answers 200
//
// config.json answers carry an ETag (the sha1 of the text); a request whose
// If-None-Match lists it is answered 304 Not Modified, with no body.
//
// Unknown repositories answer 404 with X-Error-Code: RepoNotFound, gated
// ones 401 with X-Error-Code: GatedRepo for their files unless the request
// carries the token, as the Hub does (huggingface_hub's utils/_http.py reads
// the same headers).  Repositories under gpuplan-test/ are made-up failure
// cases: a slow answer, an oversized and a malformed config.json, a redirect
// loop, a config transformers refuses and a safetensors total that differs
// from the config.
//
// Each fixture in models/ names its config.json text in configs/
// (config_file; config_source is the file on the Hub) and says in
// config_provenance where that text comes from: a byte-for-byte or verbatim
// copy of the published file, or, where no copy was found, a reconstruction
// and the list of values checked against what. It also holds the published
// parameter count and where it is stated. The revision shas are the
// stand-in's own (sha1 of the repo id).
//
// Run by hand: node tests/integration/hub/standin.mjs [port]
import http from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

// A fixture names its config.json in configs/ (config_file), kept as the
// published text so the stand-in serves those bytes; config_provenance says
// where that text was taken from and what of it was checked.
function withConfigFile(m) {
        if (!m.config_file) return m;
        const raw = readFileSync(join(HERE, 'configs', m.config_file), 'utf8');
        return { ...m, raw, config: JSON.parse(raw) };
}

function load(sub) {
        const dir = join(HERE, sub);
        return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
                .map((f) => withConfigFile(JSON.parse(readFileSync(join(dir, f), 'utf8'))));
}

// The published models of the issue (models/), and quantized copies as
// their owners published them (quantized/: one per quantization format).
export const loadFixtures = () => load('models');
export const loadQuantized = () => load('quantized');

const sha1 = (s) => createHash('sha1').update(s).digest('hex');

// A small LLaMA-shaped config for the made-up repositories: 2 x 1000 x 256
// embeddings and head + 2 x (4 x 256^2 + 3 x 256 x 512 + 2 x 256) + 256
// = 512,000 + 2 x 655,872 + 256 = 1,824,000 parameters.
const TINY = {
        model_type: 'llama', hidden_size: 256, intermediate_size: 512, num_hidden_layers: 2,
        num_attention_heads: 4, num_key_value_heads: 4, vocab_size: 1000,
        max_position_embeddings: 2048, tie_word_embeddings: false,
};
export const TINY_PARAMETERS = 1824000;

function madeUp() {
        const m = (name, extra = {}) => ({ repo: `gpuplan-test/${name}`, sha: sha1(name), gated: false,
                config: TINY, ...extra });
        return [
                m('slow-model', { slow: true }),
                m('oversized', { raw: `{"model_type": "llama", "pad": "${'x'.repeat(3 << 20)}"}` }),
                m('malformed', { raw: '{"model_type": "llama", "hidden_size": 256,' }),
                m('redirect-loop', { loop: true }),
                m('no-kv-heads', { config: { ...TINY, num_key_value_heads: 0 } }),
                // a safetensors total 10% above the config's count
                m('mismatch', { safetensors: { parameters: { BF16: Math.round(TINY_PARAMETERS * 1.1) },
                        total: Math.round(TINY_PARAMETERS * 1.1) } }),
                m('gated-tiny', { gated: 'auto' }),
                // answers after 300 ms, so that concurrent first requests overlap
                m('concurrent', { delayMs: 300 }),
                // read again after the TTL (If-None-Match), and republished
                m('refresh'),
        ];
}

function send(res, status, body, headers = {}) {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8',
                'content-length': Buffer.byteLength(text), ...headers });
        res.end(text);
}

function notFound(res, code = 'RepoNotFound', what = 'Repository not found') {
        send(res, 404, { error: what }, { 'x-error-code': code, 'x-error-message': what });
}

// Start the stand-in.  token: the HF_TOKEN that opens gated repositories;
// slowMs: how long gpuplan-test/slow-model takes to answer.
export async function startHub({ port = 0, token = 'hf_standin_token', slowMs = 20000 } = {}) {
        const models = new Map();
        for (const m of [...loadFixtures(), ...loadQuantized(), ...madeUp()])
                models.set(m.repo.toLowerCase(), m);
        const hits = new Map(); // repo -> requests for its info or files
        const notModified = new Map(); // repo -> 304 answers to If-None-Match
        const pending = new Set();
        const count = (repo) => hits.set(repo, (hits.get(repo) || 0) + 1);
        const authorised = (req) => req.headers.authorization === `Bearer ${token}`;
        const configText = (m) => m.raw ?? JSON.stringify(m.config, null, 2);

        const server = http.createServer((req, res) => {
                const url = new URL(req.url, 'http://hub');
                const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
                let m, repo;
                const info = (rev) => {
                        if (rev && rev !== 'main' && rev !== m.sha)
                                return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
                        const doc = { _id: m.sha.slice(0, 24), id: m.repo, modelId: m.repo, sha: m.sha,
                                private: false, gated: m.gated, disabled: false,
                                config: { model_type: m.config?.model_type },
                                siblings: [{ rfilename: 'config.json' }] };
                        if (m.safetensors)
                                doc.safetensors = { parameters: m.safetensors.parameters,
                                        total: m.safetensors.total };
                        send(res, 200, doc);
                };
                if (parts[0] === 'api' && parts[1] === 'models') {
                        repo = `${parts[2]}/${parts[3]}`;
                        count(repo.toLowerCase());
                        m = models.get(repo.toLowerCase());
                        if (!m || (parts.length !== 4 && !(parts.length === 6 && parts[4] === 'revision')))
                                return notFound(res);
                        if (m.slow || m.delayMs) {
                                const t = setTimeout(() => info(parts[5]), m.slow ? slowMs : m.delayMs);
                                pending.add(t);
                                res.on('close', () => clearTimeout(t));
                                return;
                        }
                        return info(parts[5]);
                }
                const cached = parts[0] === 'api' && parts[1] === 'resolve-cache';
                if (cached)
                        parts.splice(0, 3); // api/resolve-cache/models/{org}/{name}/{sha}/config.json
                if (!cached && parts[2] === 'resolve')
                        parts.splice(2, 1); // {org}/{name}/resolve/{rev}/config.json
                if (parts.length === 4 && parts[3] === 'config.json') {
                        repo = `${parts[0]}/${parts[1]}`;
                        count(repo.toLowerCase());
                        m = models.get(repo.toLowerCase());
                        if (!m)
                                return notFound(res, 'EntryNotFound', 'Entry not found');
                        if (m.gated && !authorised(req))
                                return send(res, 401, { error: `Access to model ${m.repo} is restricted. You must have access to it and be authenticated to access it. Please log in.` },
                                        { 'x-error-code': 'GatedRepo' });
                        const rev = parts[2];
                        if (rev !== 'main' && rev !== m.sha)
                                return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
                        const text = configText(m);
                        const etag = `"${sha1(text)}"`;
                        // A conditional GET whose ETag still matches: 304, no body, at the
                        // first hop as at the content-addressed one (RFC 9110 13.1.2: a list,
                        // weak comparison).
                        const inm = req.headers['if-none-match'];
                        if (inm && inm.split(',').map((t) => t.trim().replace(/^W\//, '')).some((t) => t === etag || t === '*')) {
                                notModified.set(m.repo.toLowerCase(), (notModified.get(m.repo.toLowerCase()) || 0) + 1);
                                res.writeHead(304, { 'x-repo-commit': m.sha, etag });
                                return res.end();
                        }
                        if (m.loop)
                                return send(res, 302, '', { location: req.url, 'x-repo-commit': m.sha });
                        if (!cached)
                                return send(res, 302, '', { location: `/api/resolve-cache/models/${m.repo}/${m.sha}/config.json`,
                                        'x-repo-commit': m.sha, etag });
                        return send(res, 200, text, { 'x-repo-commit': m.sha, etag });
                }
                notFound(res, 'EntryNotFound', 'Entry not found');
        });
        await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
        return {
                url: `http://127.0.0.1:${server.address().port}`,
                token,
                models,
                hits: (repo) => hits.get(repo.toLowerCase()) || 0,
                notModified: (repo) => notModified.get(repo.toLowerCase()) || 0,
                resetHits: () => { hits.clear(); notModified.clear(); },
                // A new config.json text for repo (a new commit on its branch).
                publish: (repo, raw) => {
                        const m = models.get(repo.toLowerCase());
                        m.raw = raw;
                        m.config = JSON.parse(raw);
                        m.sha = sha1(`${m.sha}\n${raw}`);
                },
                close: () => new Promise((resolve) => {
                        for (const t of pending)
                                clearTimeout(t);
                        server.closeAllConnections();
                        server.close(resolve);
                }),
        };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
        const hub = await startHub({ port: Number(process.argv[2] || 0) });
        console.log(`hub stand-in on ${hub.url} (token ${hub.token})`);
}
