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

// Does model m match every word of the search text?  Words are matched,
// case-insensitively, against the id, name, family, Hub ids and the size
// ("8b", "560m": the published count rounded as model names round it).
export function modelMatches(m, query) {
        const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
        if (!words.length) return true;
        const n = Number(m.published_parameters) || 0;
        const size = n >= 1e9 ? `${+(n / 1e9).toFixed(n < 1e10 ? 1 : 0)}b ${Math.round(n / 1e9)}b`
                : `${Math.round(n / 1e6)}m`;
        const hay = [m.id, m.name, m.family, ...(m.hub_ids || []), size].join(' ').toLowerCase();
        return words.every((w) => hay.includes(w));
}

// Fill the model <select> with the catalog models matching query (all when
// empty), grouped by family; keeps the current choice when it still matches,
// else selects the first match.  Returns the number of matches.
export function fillModelSelect(select, list, query = '') {
        const keep = select.value;
        select.replaceChildren();
        const families = new Map();
        let count = 0;
        for (const m of list) {
                if (!modelMatches(m, query)) continue;
                const f = m.family || 'other';
                if (!families.has(f)) families.set(f, []);
                families.get(f).push(m);
                count++;
        }
        for (const [family, ms] of families) {
                const group = el('optgroup', { label: family });
                for (const m of ms) group.append(new Option(m.name || m.id, m.id));
                select.append(group);
        }
        if (keep) select.value = keep;
        if (!select.value && select.options.length) select.selectedIndex = 0;
        return count;
}
