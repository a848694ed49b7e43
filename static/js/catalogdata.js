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

// A Hugging Face Hub id as typed or pasted: "org/name", or a huggingface.co
// URL of the repository (with /tree/{revision} to pin one).  Returns
// {id, revision} or null.  The characters are the Hub's repository-name
// rule (huggingface_hub utils/_validators.py, REPO_ID_REGEX).
export function hubId(text) {
        let t = String(text || '').trim();
        const url = /^(?:https?:\/\/)?(?:www\.)?(?:huggingface\.co|hf\.co)\/(.*)$/i.exec(t);
        if (url) t = url[1].replace(/[?#].*$/, '');
        const m = /^([A-Za-z0-9][\w.-]{0,95})\/([\w.-]{1,96})(?:\/tree\/([^/\s]+))?\/?$/.exec(t);
        if (!m || m[1].includes('..') || m[2].includes('..')) return null;
        return { id: `${m[1]}/${m[2]}`, revision: m[3] ? decodeURIComponent(m[3]) : null };
}

// Does model m match every word of the search text?  Words are matched,
// case-insensitively, against the id, name, family, Hub ids and the size
// ("8b", "560m": the published count rounded as model names round it).
// A pasted Hub URL is matched as its org/name.
export function modelMatches(m, query) {
        const hub = hubId(query);
        const words = String(hub ? hub.id : query || '').toLowerCase().split(/\s+/).filter(Boolean);
        if (!words.length) return true;
        const n = Number(m.published_parameters) || 0;
        const size = !n ? '' : n >= 1e9 ? `${+(n / 1e9).toFixed(n < 1e10 ? 1 : 0)}b ${Math.round(n / 1e9)}b`
                : `${Math.round(n / 1e6)}m`;
        const hay = [m.id, m.name, m.family, ...(m.hub_ids || []), size].join(' ').toLowerCase();
        return words.every((w) => hay.includes(w));
}

// Is this id, any case, one of the models' ids or Hub ids?
export function knownId(list, id) {
        const want = String(id || '').toLowerCase();
        return list.some((m) => String(m.id).toLowerCase() === want ||
                (m.hub_ids || []).some((h) => String(h).toLowerCase() === want));
}

// Where a model comes from, as the model list groups it.
export function originLabel(origin) {
        if (origin === 'team') return 'team model';
        if (origin === 'hub') return 'read from the Hugging Face Hub';
        return 'catalog';
}

// Fill the model <select> with the models matching query (all when empty):
// catalog models grouped by family, then the team's own models, then
// those read from the Hub, each group naming its origin (m.origin: catalog,
// team or hub).  Keeps the current choice when it still matches, else
// selects the first match.  Returns the matches counted by origin.
export function fillModelSelect(select, list, query = '') {
        const keep = select.value;
        select.replaceChildren();
        const groups = new Map();
        const counts = { catalog: 0, team: 0, hub: 0, total: 0 };
        for (const m of list) {
                if (!modelMatches(m, query)) continue;
                const origin = m.origin === 'team' || m.origin === 'hub' ? m.origin : 'catalog';
                const label = origin === 'catalog' ? `${m.family || 'other'} (catalog)`
                        : origin === 'team' ? 'Team models' : 'Read from the Hugging Face Hub';
                if (!groups.has(label)) groups.set(label, { origin, models: [] });
                groups.get(label).models.push(m);
                counts[origin]++;
                counts.total++;
        }
        const ordered = [...groups].sort((a, b) => ['catalog', 'team', 'hub'].indexOf(a[1].origin) -
                ['catalog', 'team', 'hub'].indexOf(b[1].origin));
        for (const [label, g] of ordered) {
                const group = el('optgroup', { label });
                for (const m of g.models) group.append(new Option(m.name || m.id, m.id));
                select.append(group);
        }
        if (keep) select.value = keep;
        if (!select.value && select.options.length) select.selectedIndex = 0;
        return counts;
}
