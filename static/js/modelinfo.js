// modelinfo.js - what the page says about a model the server read: the
// shape the config.json importer understood, and for a model from the
// Hugging Face Hub what was read (GET api/v1/hub/{org}/{name}, or the
// estimate answer's model.source): revision and commit, parameters and
// where they were counted, the checkpoint's quantization, the vision tower.

import { el } from './dom.js';
import * as fmt from './format.js';

// The shape the importer read, in one line: what decides memory.
export function archText(a) {
        const parts = [`${a.layers} layers`, `hidden ${a.hidden_size}`,
                `${a.heads} heads${a.kv_heads && a.kv_heads !== a.heads ? ` (${a.kv_heads} KV)` : ''}`,
                `FFN ${a.ffn_size}${a.gated_mlp ? ' gated' : ''}`, `vocabulary ${a.vocab_size}`];
        if (a.decoder_layers) parts.splice(1, 0, `${a.decoder_layers} decoder layers`);
        if (a.experts > 1) parts.push(`${a.experts} experts, ${a.active_experts} active`);
        if (a.shared_expert_ffn) parts.push(`shared expert ${a.shared_expert_ffn}`);
        if (a.sliding_window) parts.push(`window ${a.sliding_window}${a.global_every ? `, global attention every ${a.global_every} layers` : ''}`);
        if (a.kv_lora_rank) parts.push(`latent KV ${a.kv_lora_rank} + ${a.qk_rope_head_dim}`);
        if (a.generic) parts.push('unknown type: a generic decoder');
        return parts.join(', ');
}

// "main at 0a1b2c3d4e5f", or the sha alone when it was asked for.
function revisionText(revision, sha) {
        const short = String(sha || '').slice(0, 12);
        if (!revision || revision === sha) return short;
        return `${revision} at ${short}`;
}

function parametersWhy(r) {
        if (r.parameters_source === 'safetensors')
                return `The Hub's safetensors totals (the weights as stored); config.json gives ${fmt.integer(r.config_parameters)}.`;
        return 'Counted from config.json (the Hub gave no safetensors totals).';
}

// The answer of GET api/v1/hub/{org}/{name} as a heading and a list of
// facts; ids are for tests and for the reader's assistive technology.
export function hubFacts(r) {
        const a = r.architecture || {};
        const row = (id, label, value, why) => el('div', {}, el('dt', {}, label), el('dd', { id }, value),
                why ? el('dd', { class: 'why' }, why) : null);
        const vision = fmt.isNum(r.vision_parameters) && r.vision_parameters > 0;
        return [
                el('p', { class: 'hub-title' }, el('strong', { id: 'hub-read-id' }, r.id),
                        r.gated ? ' — a gated repository, read with the server\'s HF_TOKEN' : '',
                        r.stale ? el('span', { class: 'bad' }, ' — the Hub could not be reached: an older copy') : ''),
                el('dl', { class: 'facts explained', id: 'hub-read-facts' },
                        row('hub-read-arch', 'Architecture', `${a.model_type || 'model'} ${fmt.words(a.kind || '')}`.trim(), archText(a)),
                        row('hub-read-parameters', 'Parameters', `${fmt.count(r.parameters)} (${fmt.integer(r.parameters)})`, parametersWhy(r)),
                        row('hub-read-revision', 'Revision', revisionText(r.revision, r.sha), `Commit ${r.sha}`),
                        row('hub-read-quantization', 'Quantization',
                                r.quantization ? `${r.quantization}${r.quantization_format ? ` (${r.quantization_format})` : ''}` : 'none',
                                r.quantization ? 'The checkpoint is stored quantized; the estimate counts its weights so.'
                                        : 'The checkpoint is not quantized: weights take the precision asked for.'),
                        row('hub-read-vision', 'Vision tower',
                                vision ? `${fmt.count(r.vision_parameters)} parameters` : 'none (text only)',
                                vision && fmt.isNum(r.image_tokens) ? `Each image becomes ${fmt.integer(r.image_tokens)} tokens; set "Images per sample".` : null)),
        ];
}

// One line under the headline for an answer that read the Hub: what was read.
export function sourceLine(source) {
        if (!source || source.kind !== 'hub') return null;
        const counted = source.parameters_source === 'safetensors' ? 'the Hub\'s safetensors totals' : 'config.json';
        return el('p', { class: 'model-line', id: 'calc-source' },
                'Read from the Hugging Face Hub: ', el('strong', {}, source.repo), ` at ${revisionText(source.revision, source.sha)}`,
                `; parameters from ${counted}`,
                source.quantization ? `; stored as ${source.quantization}` : '',
                source.stale ? el('span', { class: 'bad' }, '; the Hub could not be reached, an older copy answered') : '');
}
