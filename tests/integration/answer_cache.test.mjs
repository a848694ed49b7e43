// answer_cache.test.mjs - compare and rent_vs_buy answers are cached per
// request body and catalog content (server/api/answer_cached.c): a repeated
// question gets the same bytes from the cache, and a price write makes a
// new snapshot whose answers are computed afresh, never served stale.

import test from 'node:test';
import assert from 'node:assert/strict';

import { adminToken, get, post } from './lib.mjs';

const compareBody = {
        model: { id: 'xlm-roberta-large' },
        workload: { mode: 'fine_tune', batch_size: 8, sequence_length: 128, dataset: { samples: 10000 } },
        optimizer: 'adamw',
        constraints: { max_gpus: 8 },
};

// The same question with its keys in another order: the canonical body is the same.
const compareReordered = {
        constraints: { max_gpus: 8 },
        optimizer: 'adamw',
        workload: { dataset: { samples: 10000 }, sequence_length: 128, batch_size: 8, mode: 'fine_tune' },
        model: { id: 'xlm-roberta-large' },
};

async function counter(name) {
        const text = (await get('/metrics')).text;
        const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
        return m ? Number(m[1]) : 0;
}

test('a repeated compare is answered from the cache with the same bytes', async () => {
        const first = await post('/api/v1/compare', compareBody);
        assert.equal(first.status, 200, first.text);
        const hits = await counter('gpuplan_answer_cache_hits_total');
        const again = await post('/api/v1/compare', compareBody);
        const reordered = await post('/api/v1/compare', compareReordered);
        assert.equal(again.status, 200);
        assert.equal(again.text, first.text);
        assert.equal(reordered.text, first.text);
        assert.equal(again.contentType, first.contentType);
        assert.equal(await counter('gpuplan_answer_cache_hits_total'), hits + 2);
});

test('identical compares sent together are all answered, with the same bytes', async () => {
        const body = { ...compareBody, constraints: { max_gpus: 16 } };
        const answers = await Promise.all(Array.from({ length: 8 }, () => post('/api/v1/compare', body)));
        for (const a of answers) {
                assert.equal(a.status, 200, a.text);
                assert.equal(a.text, answers[0].text);
        }
});

test('a problem document is cached like an answer and stays the same', async () => {
        const bad = { ...compareBody, constraints: { pricing: 'cheap' } };
        const first = await post('/api/v1/compare', bad);
        const again = await post('/api/v1/compare', bad);
        assert.equal(first.status, 400);
        assert.equal(again.status, 400);
        assert.equal(again.text, first.text);
        assert.match(again.contentType, /application\/problem\+json/);
});

test('a price write changes the compare and rent_vs_buy answers at once (new snapshot, no stale cache)', async () => {
        const admin = { headers: { Authorization: `Bearer ${adminToken()}`, 'X-Actor': 'integration-test' } };
        const old = (await get('/api/v1/prices?gpu=a100-sxm-80gb&pricing=on_demand')).json.prices[0];
        const offering = old.offering;
        const rvbBody = { gpu: 'a100-sxm-80gb', jobs_per_week: 2, hours_per_job: 4, purchase_usd: 15000 };
        const rowOf = (doc) => doc.rent.find((r) => r.offering === offering);
        const planOf = (doc) => doc.plans.find((p) => p.offering === offering);

        // Warm the cache with the old price.
        const rvbBefore = await post('/api/v1/rent_vs_buy', rvbBody);
        assert.equal(rvbBefore.status, 200, rvbBefore.text);
        assert.equal(rowOf(rvbBefore.json).usd_per_hour, old.usd_per_hour);
        const cmpBefore = await post('/api/v1/compare', compareBody);
        assert.equal((await post('/api/v1/compare', compareBody)).text, cmpBefore.text);
        const planBefore = planOf(cmpBefore.json);
        assert.ok(planBefore, `the compare answer has a plan on ${offering}`);
        assert.equal(planBefore.usd_per_hour, old.usd_per_hour);

        const today = new Date().toISOString().slice(0, 10);
        // Lower, not higher: a dearer quote could hand the plan to the same instance
        // type in another region (compare plans each type once, in its cheapest region).
        const next = Math.round((old.usd_per_hour - 0.53) * 100) / 100;
        assert.ok(next > 0, `${offering}: ${old.usd_per_hour}`);
        const write = (usd) => post('/api/v1/prices', { offering, pricing: 'on_demand', usd_per_hour: usd, as_of: today,
                                                         source: 'https://example.org/cache-test' }, admin);
        const w = await write(next);
        assert.equal(w.status, 201, w.text);
        try {
                // The very next answers carry the new price: the old snapshot's answers are not served.
                const rvbAfter = await post('/api/v1/rent_vs_buy', rvbBody);
                assert.equal(rvbAfter.status, 200, rvbAfter.text);
                assert.equal(rowOf(rvbAfter.json).usd_per_hour, next);
                assert.notEqual(rvbAfter.text, rvbBefore.text);
                const cmpAfter = await post('/api/v1/compare', compareBody);
                assert.equal(cmpAfter.status, 200, cmpAfter.text);
                assert.equal(planOf(cmpAfter.json).usd_per_hour, next);
                assert.notEqual(cmpAfter.text, cmpBefore.text);
        } finally {
                // Put the old figure back as the current price for the tests that follow.
                assert.equal((await write(old.usd_per_hour)).status, 201);
        }
});
