// GET /api/v1/validation reads the measured cases from PostgreSQL, where
// the migrations put them; tests/data/measurements.json is the copy the
// offline accuracy bench reads.  The two must not drift apart.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { get, ROOT } from './lib.mjs';

const UNIT_BYTES = { GB: 1e9, MB: 1e6, GiB: 2 ** 30, MiB: 2 ** 20 };

test('the database holds every measured case exactly as tests/data has it', async () => {
        const file = JSON.parse(readFileSync(join(ROOT, 'tests/data/measurements.json'), 'utf8'));
        const r = await get('/api/v1/validation');
        assert.equal(r.status, 200, r.text);
        const served = new Map(r.json.cases.map((c) => [c.id, c]));
        assert.deepEqual([...served.keys()].sort(), file.cases.map((c) => c.id).sort());
        for (const c of file.cases) {
                const s = served.get(c.id);
                assert.equal(s.category, c.category, c.id);
                assert.equal(s.measurement_kind, c.kind, c.id);
                assert.equal(s.unit, c.unit, c.id);
                // PostgreSQL prints 15 significant digits
                assert.ok(Math.abs(s.measured - c.measured) <= 1e-12 * c.measured, c.id);
                // the bytes agree with the figure and its unit to the
                // figure's last printed digit (our own runs keep the exact
                // byte count beside a figure rounded to 0.01)
                assert.ok(Math.abs(s.measured_bytes - c.measured * UNIT_BYTES[c.unit]) <=
                          0.005 * UNIT_BYTES[c.unit], c.id);
                assert.deepEqual(s.request, c.request, c.id);
        }
});

test('the database holds every throughput case exactly as tests/data has it', async () => {
        const file = JSON.parse(readFileSync(join(ROOT, 'tests/data/throughput.json'), 'utf8'));
        const r = await get('/api/v1/validation');
        assert.equal(r.status, 200, r.text);
        const served = new Map(r.json.time.cases.map((c) => [c.id, c]));
        assert.deepEqual([...served.keys()].sort(), file.cases.map((c) => c.id).sort());
        for (const c of file.cases) {
                const s = served.get(c.id);
                assert.equal(s.category, c.category, c.id);
                assert.equal(s.metric, c.metric, c.id);
                assert.ok(Math.abs(s.measured - c.measured) <= 1e-12 * c.measured, c.id);
                assert.deepEqual(s.request, c.request, c.id);
                // every case runs: none is refused by the engine
                assert.notEqual(s.error, null, `${c.id}: ${JSON.stringify(s.problem)}`);
        }
});
