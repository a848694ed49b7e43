// load.mjs URL SECONDS [CLIENTS] [RATE_PER_CLIENT]
// Estimates through URL from CLIENTS clients (default 4) at RATE requests/s
// each (default 10, below nginx's 50 requests/s per client address), varying
// batch and sequence; prints one JSON line: requests, ok, failed, statuses.
const [url, secs, clients = '4', rate = '10'] = process.argv.slice(2);
const end = Date.now() + Number(secs) * 1000;
const out = { requests: 0, ok: 0, failed: 0, statuses: {} };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function client(i) {
        for (let n = 0; Date.now() < end; n++) {
                const body = JSON.stringify({ model: { id: 'llama-2-7b' },
                        workload: { mode: 'inference', batch_size: 1 + (n % 8), sequence_length: 256 + i } });
                let key;
                try {
                        const r = await fetch(url + '/api/v1/estimate', { method: 'POST', body,
                                headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(10000) });
                        await r.arrayBuffer();
                        key = String(r.status);
                        if (r.status === 200) out.ok++;
                        else out.failed++;
                } catch (e) {
                        key = e.name;
                        out.failed++;
                }
                out.requests++;
                out.statuses[key] = (out.statuses[key] || 0) + 1;
                await sleep(1000 / Number(rate));
        }
}

await Promise.all(Array.from({ length: Number(clients) }, (_, i) => client(i)));
console.log(JSON.stringify(out));
