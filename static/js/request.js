// request.js - the calculator's inputs as a flat map of short names (the
// same names appear in the page's address, so a link carries them), and the
// one function that turns that map into a POST /api/v1/estimate body.  The
// cost view sends the same body plus "constraints" to /api/v1/compare.
//
// Nothing is validated here: the API is the single judge of what is valid,
// and its problem documents are shown next to the field they name.

export const CALC_DEFAULTS = Object.freeze({
        framework: 'none', source: 'catalog', model: 'xlm-roberta-large', parameters: '7000000000', hf: '',
        kind: 'decoder', layers: '32', hidden: '4096', heads: '32', kv_heads: '32', ffn: '11008',
        vocab: '32000', max_pos: '4096', experts: '0', active_experts: '0', gated: '1', tied: '0',
        mode: 'pre_train', batch: '16', seq: '128', target: '', accum: '1', labels: '3',
        prompt: '512', gen: '128', lora_rank: '16', lora_alpha: '32',
        // No invented dataset: time is per step and per million tokens until
        // a size is entered, as tokens or as samples.
        samples: '', tokens: '', epochs: '1', allow_peft: '1',
        // A vision-language model: images in each sample (blank: none).
        images: '',
        // The Hub revision (branch, tag or sha) a look-up pinned for the model.
        rev: '',
        // Settings left for the chosen framework's preset to fill (comma list).
        fw_keys: '',
        precision: 'fp32', quant: 'none', optimizer: 'adamw',
        ckpt: 'none', flash: '0', chunked: '0', opt_bwd: '0', act_off: '0',
        strategy: 'single', sharding: 'full_shard', gpus: '1', nodes: '1', tp: '1', pp: '1', offload: 'none',
        // The article's GPU (an A100 40GB) so that time and cost show from the
        // first view; "none" asks for the fit table only.
        gpu: 'a100-sxm-40gb',
});

export const TRAINING_MODES = ['fine_tune', 'lora', 'qlora', 'pre_train'];

// The settings starting settings may change (the rest are the model and the
// question: mode, GPU, framework, lengths of inference requests).
export const STARTING_KEYS = ['precision', 'quant', 'flash', 'ckpt', 'batch', 'accum', 'seq', 'optimizer', 'offload', 'strategy', 'gpus'];

// GPUs without bf16 tensor cores (compute capability below 8.0: NVIDIA CUDA
// C Programming Guide, "Arithmetic Instructions"): fp16 mixed there.
const NO_BF16 = /^(t4|v100|p100|k80|p4|p40|rtx-20|quadro-rtx)/;

/*
 * The settings a practitioner starts from, for a mode and a model kind.
 *   Decoders (and encoder-decoders): bf16 mixed precision (fp16 mixed on a
 *   GPU without bf16), fused attention, a micro-batch of 2 with 8
 *   accumulation steps at 512 tokens - the shape of torchtune's
 *   recipes/configs/llama3_1/8B_lora_single_device.yaml (batch_size 2,
 *   dtype bf16) and Hugging Face TRL's SFT examples; QLoRA quantizes the
 *   base weights to NF4 (Dettmers et al. 2023).  Inference: bf16 weights,
 *   one request.
 *   Encoders: fp32, batch 16 at 128 tokens, eager attention - how
 *   transformers' run_mlm.py / run_glue.py examples run BERT and XLM-R
 *   without --fp16, and the setup of the XLM-RoBERTa requirement tables.
 */
export function startingSettings(s) {
        const kind = modelKind(s);
        const training = TRAINING_MODES.includes(s.mode);
        if (kind === 'encoder')
                return { precision: 'fp32', quant: 'none', flash: '0', ckpt: 'none', batch: '16', accum: '1',
                        seq: '128', optimizer: 'adamw', offload: 'none', strategy: 'single', gpus: '1' };
        const half = NO_BF16.test(s.gpu || '') ? 'fp16' : 'bf16';
        if (!training)
                return { precision: half, quant: 'none', flash: '1', batch: '1', strategy: 'single', gpus: '1' };
        return {
                precision: `${half}_mixed`, quant: s.mode === 'qlora' ? 'nf4' : 'none', flash: '1', ckpt: 'none',
                batch: '2', accum: '8', seq: '512', optimizer: 'adamw', offload: 'none', strategy: 'single', gpus: '1',
        };
}

// encoder / decoder / encoder_decoder, as far as the page knows; a pasted
// config or a bare count is taken as a decoder (today's common case).
export function modelKind(s) {
        if (isEncoder(s)) return 'encoder';
        if (isEncoderDecoder(s)) return 'encoder_decoder';
        if (s.source === 'catalog' && !modelKinds.has(s.model)) return 'unknown';
        return 'decoder';
}

// The kind (encoder / decoder / encoder_decoder) of each catalog model, as
// GET api/v1/models reports it; filled by the calculator once loaded.
const modelKinds = new Map();

// Models with a vision tower (architecture.vision_parameters), by id.
const visionModels = new Set();

export function setModelKinds(models) {
        modelKinds.clear();
        addModels(models);
}

// Learn more models (a team model or a Hub look-up found later): their
// kind, and whether they take images.  A model is {id, architecture}.
export function addModels(models) {
        for (const m of models) {
                if (!m || !m.id || !m.architecture) continue;
                if (m.architecture.kind) modelKinds.set(m.id, m.architecture.kind);
                if (m.architecture.vision_parameters > 0) visionModels.add(m.id);
        }
}

// A vision-language model: its config has a vision tower, so images per
// sample mean something (the API refuses them for a text-only model).
export function isVision(s) {
        if (s.source === 'catalog') return visionModels.has(s.model);
        if (s.source === 'hf_config') {
                try {
                        const cfg = JSON.parse(s.hf);
                        return Boolean(cfg && typeof cfg.vision_config === 'object' && cfg.vision_config);
                } catch {
                        return false;
                }
        }
        return false;
}

// An encoder does not generate: its inference is one forward pass over a
// sequence, so it takes a sequence length instead of prompt and generated
// tokens (the API refuses generated tokens for an encoder).
export function isEncoder(s) {
        if (s.source === 'catalog') return modelKinds.get(s.model) === 'encoder';
        if (s.source === 'architecture') return s.kind === 'encoder';
        return false;
}

// An encoder-decoder (T5, BART) writes its own number of tokens: its
// training takes a target length beside the sequence length.  A pasted
// config says so by its model_type.
const ENCODER_DECODER_TYPES = ['t5', 'mt5', 'umt5', 'bart', 'mbart'];

export function isEncoderDecoder(s) {
        if (s.source === 'catalog') return modelKinds.get(s.model) === 'encoder_decoder';
        if (s.source === 'architecture') return s.kind === 'encoder_decoder';
        if (s.source === 'hf_config') {
                try {
                        return ENCODER_DECODER_TYPES.includes(JSON.parse(s.hf).model_type);
                } catch {
                        return false;
                }
        }
        return false;
}

// Which inputs mean something for a given state (the others are hidden and
// neither sent nor written into links).
export function relevant(name, s) {
        const training = TRAINING_MODES.includes(s.mode);
        switch (name) {
        case 'seq': return training || isEncoder(s);
        case 'target': return training && isEncoderDecoder(s);
        case 'prompt': case 'gen': return s.mode === 'inference' && !isEncoder(s);
        case 'model': case 'rev': return s.source === 'catalog';
        case 'parameters': return s.source === 'parameters';
        case 'hf': return s.source === 'hf_config';
        case 'kind': case 'layers': case 'hidden': case 'heads': case 'kv_heads': case 'ffn':
        case 'vocab': case 'max_pos': case 'experts': case 'active_experts': case 'gated': case 'tied':
                return s.source === 'architecture';
        case 'accum': case 'optimizer': case 'ckpt': case 'chunked': case 'opt_bwd':
        case 'act_off': case 'offload':
                return training;
        // A task head (classes) belongs to an encoder's fine-tune; a decoder's
        // fine-tune trains its language-model head.
        case 'labels': return ['fine_tune', 'lora', 'qlora'].includes(s.mode) && isEncoder(s);
        case 'samples': case 'tokens': case 'epochs': return training;
        case 'images': return isVision(s);
        case 'allow_peft': return s.mode === 'fine_tune' || s.mode === 'lora';
        case 'lora_rank': case 'lora_alpha': return s.mode === 'lora' || s.mode === 'qlora';
        case 'sharding': return s.strategy === 'fsdp';
        case 'fw_keys': return s.framework !== 'none' && Boolean(s.fw_keys);
        default: return true;
        }
}

// A number as typed: integers stay exact, anything else is passed through
// as a number (or as the raw text when it is not one) for the API to judge.
function num(v) {
        if (v === undefined || v === null || String(v).trim() === '') return undefined;
        const t = String(v).trim();
        if (/^-?\d+$/.test(t)) {
                const n = Number(t);
                return Number.isSafeInteger(n) ? n : t;
        }
        const f = Number(t);
        return Number.isFinite(f) ? f : t;
}

const flag = (v) => v === '1' || v === 'true' || v === true;

function put(obj, key, value) {
        if (value !== undefined) obj[key] = value;
}

export class ModelInputError extends Error {
        constructor(pointer, detail) {
                super(detail);
                this.pointer = pointer;
        }
}

export function modelPart(s) {
        switch (s.source) {
        case 'parameters':
                return { parameters: num(s.parameters) };
        case 'hf_config': {
                let cfg;
                try {
                        cfg = JSON.parse(s.hf || '');
                } catch (e) {
                        throw new ModelInputError('/model/hf_config', `config.json is not valid JSON: ${e.message}`);
                }
                return { hf_config: cfg };
        }
        case 'architecture': {
                const a = { kind: s.kind };
                put(a, 'layers', num(s.layers));
                put(a, 'hidden_size', num(s.hidden));
                put(a, 'heads', num(s.heads));
                put(a, 'kv_heads', num(s.kv_heads));
                put(a, 'ffn_size', num(s.ffn));
                put(a, 'vocab_size', num(s.vocab));
                put(a, 'max_positions', num(s.max_pos));
                a.gated_mlp = flag(s.gated);
                a.tied_embeddings = flag(s.tied);
                const experts = num(s.experts);
                if (typeof experts === 'number' && experts > 0) {
                        a.experts = experts;
                        put(a, 'active_experts', num(s.active_experts));
                }
                return { architecture: a };
        }
        default:
                return s.rev ? { id: s.model, revision: s.rev } : { id: s.model };
        }
}

// The estimate request for a calculator state (all values as strings).
export function estimateRequest(s) {
        const training = TRAINING_MODES.includes(s.mode);
        const workload = { mode: s.mode };
        put(workload, 'batch_size', num(s.batch));
        if (relevant('seq', s)) put(workload, 'sequence_length', num(s.seq));
        if (relevant('target', s)) put(workload, 'target_length', num(s.target));
        if (relevant('accum', s)) put(workload, 'gradient_accumulation', num(s.accum));
        if (relevant('labels', s)) put(workload, 'num_labels', num(s.labels));
        if (relevant('images', s)) put(workload, 'images_per_sample', num(s.images));
        if (relevant('prompt', s)) {
                put(workload, 'prompt_tokens', num(s.prompt));
                put(workload, 'generated_tokens', num(s.gen));
        }
        if (relevant('lora_rank', s)) {
                const lora = {};
                put(lora, 'rank', num(s.lora_rank));
                put(lora, 'alpha', num(s.lora_alpha));
                workload.lora = lora;
        }
        if (training) {
                // Time needs a dataset size; without one the answer is per step and
                // per million tokens.  Tokens win over samples when both are given.
                const dataset = {};
                if (num(s.tokens) !== undefined) put(dataset, 'tokens', num(s.tokens));
                else put(dataset, 'samples', num(s.samples));
                if (Object.keys(dataset).length) {
                        put(dataset, 'epochs', num(s.epochs));
                        workload.dataset = dataset;
                }
        }

        const req = { model: modelPart(s), workload, precision: s.precision };
        if (s.quant && s.quant !== 'none') req.quantization = s.quant;
        if (training) {
                req.optimizer = s.optimizer;
                req.memory_savers = {
                        activation_checkpointing: s.ckpt,
                        flash_attention: flag(s.flash),
                        chunked_loss: flag(s.chunked),
                        optimizer_in_backward: flag(s.opt_bwd),
                        activation_offload: flag(s.act_off),
                };
        } else {
                req.memory_savers = { flash_attention: flag(s.flash) };
        }
        const par = { strategy: s.strategy };
        if (relevant('sharding', s)) par.fsdp_sharding = s.sharding;
        put(par, 'gpus', num(s.gpus));
        put(par, 'nodes', num(s.nodes));
        put(par, 'tensor_parallel', num(s.tp));
        put(par, 'pipeline_parallel', num(s.pp));
        if (training) par.offload = s.offload;
        req.parallelism = par;
        if (s.gpu && s.gpu !== 'none') req.gpu = s.gpu;
        if (s.framework && s.framework !== 'none') withFramework(req, s);
        return req;
}

// With a framework chosen, the settings it fills (fw_keys: set when the
// framework is chosen, a key leaves the list when the user edits it) are
// left out, so the framework's own values apply; the answer's "input"
// reports them and the calculator writes them back into the form.
function withFramework(req, s) {
        req.framework = s.framework;
        const keys = String(s.fw_keys || '').split(',').filter(Boolean);
        const ms = req.memory_savers || {};
        if (keys.includes('precision')) delete req.precision;
        if (keys.includes('ckpt')) delete ms.activation_checkpointing;
        if (keys.includes('flash')) delete ms.flash_attention;
        if (!Object.keys(ms).length) delete req.memory_savers;
        if (req.parallelism && keys.includes('strategy')) {
                delete req.parallelism.strategy;
                delete req.parallelism.fsdp_sharding;
        }
}
