// serving_request.mjs - the POST /api/v1/serving_plan body that asks the
// planner about one published load test of tests/data/serving_loadtests.json
// (its deployment, engine and settings, load and lengths).  Shared by the
// scorer (serving.mjs), the database copy (migrations/0028) and its parity
// test.
export function servingRequest(c, lengths) {
        const l = c.lengths ? lengths[c.lengths] : null;
        const traffic = {
                prompt_tokens: l ? l.prompt_tokens_mean : c.prompt_tokens,
                output_tokens: l ? l.output_tokens_mean : c.output_tokens,
                lengths: l ? 'sharegpt' : 'fixed',
        };
        if (c.load.concurrency) traffic.concurrency = c.load.concurrency;
        else traffic.requests_per_second = c.load.requests_per_second;
        return {
                model: { id: c.model },
                precision: c.precision,
                quantization: c.quantization,
                ...(c.kv_cache_precision ? { kv_cache_precision: c.kv_cache_precision } : {}),
                engine: { name: c.engine, version: c.engine_version.replace(/^NIM /, ''), ...c.engine_settings },
                deployment: { gpu: c.gpu, tensor_parallel: c.tensor_parallel },
                traffic,
        };
}
