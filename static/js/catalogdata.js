// catalogdata.js - the catalog lists several views share (GPUs, models,
// prices, providers), fetched once per page load, and the <select> options
// built from them.

import { apiGetCached } from './api.js';
import { el } from './dom.js';
import { gib } from './format.js';
import { setModelKinds } from './request.js';

export async function gpus() {
        const d = await apiGetCached('api/v1/gpus');
        return (d && Array.isArray(d.gpus)) ? d.gpus : [];
}

export async function models() {
        const d = await apiGetCached('api/v1/models?limit=1000');
        const list = (d && Array.isArray(d.models)) ? d.models : [];
        setModelKinds(list);
        return list;
}

export async function prices() {
        const d = await apiGetCached('api/v1/prices');
        return (d && Array.isArray(d.prices)) ? d.prices : [];
}

export async function purchasePrices() {
        const d = await apiGetCached('api/v1/purchase_prices');
        return (d && Array.isArray(d.purchase_prices)) ? d.purchase_prices : [];
}

export async function providers() {
        const d = await apiGetCached('api/v1/providers');
        return (d && Array.isArray(d.providers)) ? d.providers : [];
}

// Fill a <select> with GPUs, keeping its current value; firstLabel adds an
// empty first option ("" = let the API choose).
export function fillGpuSelect(select, list, firstLabel, firstValue = '') {
        const keep = select.value;
        select.replaceChildren();
        if (firstLabel) select.add(new Option(firstLabel, firstValue));
        for (const g of list) {
                const mem = g.memory_bytes ? ` — ${gib(g.memory_bytes, 0)} GiB` : '';
                select.add(new Option(`${g.name}${mem}`, g.id));
        }
        if (keep) select.value = keep;
}

export function fillModelSelect(select, list) {
        const keep = select.value;
        select.replaceChildren();
        const families = new Map();
        for (const m of list) {
                const f = m.family || 'other';
                if (!families.has(f)) families.set(f, []);
                families.get(f).push(m);
        }
        for (const [family, ms] of families) {
                const group = el('optgroup', { label: family });
                for (const m of ms) group.append(new Option(m.name || m.id, m.id));
                select.append(group);
        }
        if (keep) select.value = keep;
}
