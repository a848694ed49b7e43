// api.js - every request the page makes, and the exact same request written
// out for curl and Python.  URLs are relative to the page, so the page works
// at "/" and under a reverse-proxy sub-path such as "/gpuplan/".
//
// Errors: a non-2xx answer becomes an ApiError carrying the RFC 9457 problem
// document (status, title, detail, pointer, errors[]).  Network failures
// become an ApiError with status 0.

export class ApiError extends Error {
        constructor(status, problem) {
                super(problem && (problem.detail || problem.title) || `HTTP ${status}`);
                this.status = status;
                this.problem = problem || {};
        }

        // [{pointer, detail}] for every field the problem names.
        fields() {
                const p = this.problem;
                const out = [];
                if (Array.isArray(p.errors))
                        for (const e of p.errors)
                                if (e && typeof e.pointer === 'string')
                                        out.push({ pointer: e.pointer, detail: e.detail || p.detail || p.title, rule: e.rule });
                if (!out.length && typeof p.pointer === 'string')
                        out.push({ pointer: p.pointer, detail: p.detail || p.title, rule: p.rule });
                return out;
        }
}

export function apiUrl(path, query) {
        const u = new URL(path, document.baseURI);
        u.hash = '';
        if (query)
                for (const [k, v] of Object.entries(query))
                        if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, v);
        return u.toString();
}

export async function apiFetch(path, { method = 'GET', body, query, signal } = {}) {
        const init = { method, signal, headers: { Accept: 'application/json' } };
        if (body !== undefined) {
                init.headers['Content-Type'] = 'application/json';
                init.body = JSON.stringify(body);
        }
        let res;
        try {
                res = await fetch(apiUrl(path, query), init);
        } catch (e) {
                if (e.name === 'AbortError') throw e;
                throw new ApiError(0, { title: 'The service did not answer', detail: String(e.message || e) });
        }
        const type = res.headers.get('content-type') || '';
        let data = null;
        if (type.includes('json')) {
                try {
                        data = await res.json();
                } catch {
                        data = null;
                }
        } else {
                data = { detail: (await res.text()).slice(0, 300) };
        }
        if (!res.ok) throw new ApiError(res.status, { title: res.statusText, ...data });
        return data;
}

// Cache of GET answers that change rarely (catalog, models) for this page load.
const cache = new Map();
export function apiGetCached(path, query) {
        const key = apiUrl(path, query);
        if (!cache.has(key)) {
                const p = apiFetch(path, { query });
                p.catch(() => cache.delete(key));
                cache.set(key, p);
        }
        return cache.get(key);
}

function shellQuote(s) {
        return "'" + s.replace(/'/g, "'\\''") + "'";
}

// The request as a one-line curl command (pastes into a shell or "!curl").
export function curlCommand(method, path, body, query) {
        const url = apiUrl(path, query);
        if (body === undefined) return `curl -s ${shellQuote(url)}`;
        return `curl -s -X ${method} ${shellQuote(url)} -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(body))}`;
}

// JSON value as a Python literal (True/False/None), indented like json.dumps(indent=4).
function pyLiteral(v, indent) {
        const pad = '    '.repeat(indent + 1), end = '    '.repeat(indent);
        if (v === null) return 'None';
        if (v === true) return 'True';
        if (v === false) return 'False';
        if (typeof v === 'number' || typeof v === 'string') return JSON.stringify(v);
        if (Array.isArray(v)) {
                if (!v.length) return '[]';
                return '[\n' + v.map((x) => pad + pyLiteral(x, indent + 1)).join(',\n') + ',\n' + end + ']';
        }
        const keys = Object.keys(v);
        if (!keys.length) return '{}';
        return '{\n' + keys.map((k) => pad + JSON.stringify(k) + ': ' + pyLiteral(v[k], indent + 1)).join(',\n') +
                ',\n' + end + '}';
}

export function pythonSnippet(method, path, body, query) {
        const url = apiUrl(path, query);
        const lines = ['import requests', ''];
        if (body === undefined) {
                lines.push(`response = requests.get(${JSON.stringify(url)}, timeout=30)`);
        } else {
                lines.push(`payload = ${pyLiteral(body, 0)}`, '');
                lines.push(`response = requests.${method.toLowerCase()}(${JSON.stringify(url)}, json=payload, timeout=30)`);
        }
        lines.push('response.raise_for_status()', 'result = response.json()', 'print(result)');
        return lines.join('\n') + '\n';
}
