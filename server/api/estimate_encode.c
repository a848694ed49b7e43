/*
 * estimate_encode.c - an estimate's input and result -> the response
 * document (see estimate_encode.h).
 */
#include "api/estimate_encode.h"

#include <math.h>
#include <stdlib.h>

#include "api/fit_heads.h"
#include "api/jsonw.h"
#include "api/uncertainty.h"

/* ---- encoding ------------------------------------------------------------------ */

/*
 * The response is written straight to text (jsonw) rather than built as a
 * jansson tree and dumped: the tree cost an allocation per value, and
 * building and dumping it was most of a request's time (BENCHMARKS.md).
 * The members and their order are the contract's (openapi.yaml
 * EstimateResponse); estimate_encode_result() parses this same text for
 * callers that want a tree.
 */

/* Initial buffer: an XLM-R estimate over the seeded catalog is about 14 KB. */
#define ESTIMATE_TEXT_INITIAL_BYTES 16384
/* Hard cap: EST_FITS_MAX fit rows and every note at their longest stay far below. */
#define ESTIMATE_TEXT_MAX_BYTES (1024 * 1024)

static void write_arch(struct jsonw *w, const struct model_arch *a)
{
        jsonw_object_begin(w);
        jsonw_kstring(w, "name", a->name);
        jsonw_kstring(w, "model_type", a->model_type);
        jsonw_kstring(w, "kind", model_kind_name(a->kind));
        jsonw_kint(w, "layers", a->layers);
        if (a->kind == MODEL_ENCODER_DECODER)
                jsonw_kint(w, "decoder_layers", a->decoder_layers);
        jsonw_kint(w, "hidden_size", a->hidden);
        jsonw_kint(w, "heads", a->heads);
        jsonw_kint(w, "kv_heads", a->kv_heads);
        jsonw_kint(w, "head_dim", a->head_dim);
        jsonw_kint(w, "ffn_size", a->ffn);
        jsonw_kbool(w, "gated_mlp", a->gated_mlp);
        jsonw_kstring(w, "activation", model_activation_name(a->activation));
        jsonw_kint(w, "vocab_size", a->vocab);
        jsonw_kint(w, "max_positions", a->max_positions);
        jsonw_kint(w, "type_vocab_size", a->type_vocab);
        jsonw_kbool(w, "tied_embeddings", a->tied_embeddings);
        jsonw_kstring(w, "norm", model_norm_name(a->norm));
        jsonw_kbool(w, "pre_norm", a->pre_norm);
        jsonw_kbool(w, "attention_bias", a->attn_bias || a->qkv_bias_only);
        jsonw_kbool(w, "mlp_bias", a->mlp_bias);
        jsonw_kstring(w, "position_embedding", model_position_name(a->position));
        jsonw_kint(w, "experts", a->experts);
        jsonw_kint(w, "active_experts", a->active_experts);
        /* The float dropout shown to three decimals (0.1f would read 0.100000001490116). */
        jsonw_kreal(w, "dropout", floor(a->dropout * 1000.0 + 0.5) / 1000.0);
        if (a->extra_parameters)
                jsonw_ku64(w, "extra_parameters", a->extra_parameters);
        if (a->vision_parameters)
                jsonw_ku64(w, "vision_parameters", a->vision_parameters);
        if (a->sliding_window) {
                jsonw_kint(w, "sliding_window", a->sliding_window);
                if (a->global_every)
                        jsonw_kint(w, "global_every", a->global_every);
        }
        if (a->kv_lora_rank) {
                jsonw_kint(w, "kv_lora_rank", a->kv_lora_rank);
                jsonw_kint(w, "qk_rope_head_dim", a->qk_rope_dim);
        }
        if (a->shared_expert_ffn)
                jsonw_kint(w, "shared_expert_ffn", a->shared_expert_ffn);
        if (a->dense_layers)
                jsonw_kint(w, "dense_layers", a->dense_layers);
        if (a->linear_layers) {
                jsonw_kint(w, "linear_attention_layers", a->linear_layers);
                jsonw_ku64(w, "recurrent_state_elements", model_recurrent_state_elements(a));
        }
        if (a->generic)
                jsonw_kbool(w, "generic", true);
        jsonw_kbool(w, "pooler", a->pooler);
        jsonw_object_end(w);
}

static void write_notes(struct jsonw *w, const char *key, const struct est_note *notes, size_t n,
                        bool with_bytes)
{
        char buf[400];

        jsonw_key(w, key);
        jsonw_array_begin(w);
        for (size_t i = 0; i < n; i++) {
                const struct est_note *note = &notes[i];
                jsonw_object_begin(w);
                jsonw_kstring(w, "code", notes_name(note->code));
                jsonw_kstring(w, "text", notes_text(note, buf, sizeof(buf)));
                if (with_bytes && note->a > 0)
                        jsonw_ku64(w, "per_gpu_bytes", (uint64_t)note->a);
                if (with_bytes && note->b > 0 &&
                    (note->code == EST_S_ZERO3 || note->code == EST_S_TENSOR_PARALLEL))
                        jsonw_kint(w, "gpus", (int64_t)note->b);
                if (with_bytes && note->code == EST_S_SMALLER_BATCH)
                        jsonw_kint(w, "batch_size", (int64_t)note->b);
                jsonw_object_end(w);
        }
        jsonw_array_end(w);
}

static void write_input(struct jsonw *w, const struct estimate_input *in)
{
        jsonw_key(w, "input");
        jsonw_object_begin(w);
        jsonw_kstring(w, "mode", estimate_mode_name(in->mode));
        jsonw_kint(w, "batch_size", in->batch_size);
        jsonw_kint(w, "sequence_length", in->sequence_length);
        if (in->images) {
                jsonw_kint(w, "images_per_sample", in->images);
                jsonw_kint(w, "image_tokens", (int64_t)in->images * in->arch.image_tokens);
        }
        if (in->target_length > 0)
                jsonw_kint(w, "target_length", in->target_length);
        jsonw_kint(w, "gradient_accumulation", in->gradient_accumulation);
        if (in->mode == EST_INFERENCE) {
                jsonw_kint(w, "prompt_tokens",
                           in->prompt_tokens ? in->prompt_tokens : in->sequence_length);
                jsonw_kint(w, "generated_tokens", in->generated_tokens);
                jsonw_kstring(w, "kv_cache_precision", estimate_kv_dtype_name(in->kv_dtype));
        }
        if (in->mode == EST_LORA || in->mode == EST_QLORA)
                jsonw_kint(w, "lora_rank", in->lora_rank);
        jsonw_kstring(w, "precision", estimate_precision_name(in->precision));
        jsonw_kstring(w, "quantization", estimate_quant_name(in->quantization));
        jsonw_kstring(w, "optimizer", estimate_optimizer_name(in->optimizer));
        if (in->mode != EST_INFERENCE)
                jsonw_kstring(w, "optimizer_implementation",
                              estimate_opt_impl_names[estimate_optimizer_impl(in)]);
        if (in->mode != EST_INFERENCE) {
                jsonw_kbool(w, "gradient_clipping", in->gradient_clipping);
                jsonw_kbool(w, "expandable_segments", in->expandable_segments);
                jsonw_kbool(w, "model_output_kept", in->output_kept);
        }
        jsonw_kstring(w, "activation_checkpointing",
                      estimate_checkpointing_name(in->checkpointing));
        if (in->checkpointing == EST_CKPT_FULL && in->checkpoint_every > 1)
                jsonw_kint(w, "checkpoint_every", in->checkpoint_every);
        jsonw_kbool(w, "flash_attention", in->flash_attention);
        jsonw_kbool(w, "compile", in->compile);
        jsonw_kstring(w, "logits", estimate_logits_name(in->logits));
        jsonw_kstring(w, "framework", estimate_framework_name(in->framework));
        jsonw_kstring(w, "gemm_accumulation", in->fp16_accumulation ? "fp16" : "fp32");
        if (in->quantization != EST_QUANT_NONE)
                jsonw_kbool(w, "dequantize_to_fp16", in->dequantize_to_fp16);
        jsonw_kstring(w, "strategy", estimate_strategy_name(in->strategy));
        if (in->strategy == EST_FSDP) {
                jsonw_kint(w, "fsdp_version", in->fsdp_version);
                jsonw_kbool(w, "fsdp_no_sync", in->fsdp_no_sync);
                jsonw_kbool(w, "fsdp_use_orig_params", in->fsdp_use_orig_params);
                if (in->precision == EST_FP8_MIXED)
                        jsonw_kbool(w, "fsdp_float8_all_gather", in->float8_all_gather);
                if (in->fsdp_version == 1)
                        jsonw_kbool(w, "fsdp_limit_all_gathers", in->fsdp_limit_all_gathers);
                else if (in->fsdp_forward_shards > 1)
                        jsonw_kint(w, "fsdp_reshard_after_forward", in->fsdp_forward_shards);
                else
                        jsonw_kbool(w, "fsdp_reshard_after_forward", in->fsdp_forward_shards == 0);
        }
        if (in->precision == EST_FP8_MIXED && in->mode != EST_INFERENCE)
                jsonw_kbool(w, "float8_recompute_weight", in->float8_recompute_weight);
        jsonw_kint(w, "gpus", in->gpus);
        jsonw_kint(w, "nodes", in->nodes);
        jsonw_kint(w, "tensor_parallel", in->tensor_parallel);
        jsonw_kint(w, "pipeline_parallel", in->pipeline_parallel);
        jsonw_kstring(w, "offload", estimate_offload_name(in->offload));
        jsonw_object_end(w);
}

static void write_memory(struct jsonw *w, const struct estimate_input *in,
                         const struct estimate_result *r)
{
        jsonw_key(w, "per_gpu");
        jsonw_object_begin(w);
        jsonw_ku64(w, "total_bytes", r->per_gpu_total_bytes);
        jsonw_ku64(w, "allocated_bytes", r->per_gpu_allocated_bytes);
        jsonw_ku64(w, "reserved_bytes", r->per_gpu_reserved_bytes);
        jsonw_ku64(w, "needed_bytes", r->per_gpu_needed_bytes);
        jsonw_kstring(w, "peak_phase", estimate_phase_name(r->peak_phase));
        jsonw_key(w, "components");
        jsonw_object_begin(w);
        for (int c = 0; c < EST_COMPONENT_COUNT; c++) {
                jsonw_key(w, estimate_component_name((enum est_component)c));
                jsonw_u64(w, r->per_gpu[c]);
        }
        jsonw_object_end(w);
        jsonw_key(w, "phases");
        jsonw_object_begin(w);
        for (int p = 0; p < EST_PHASE_COUNT; p++)
                if (r->phase_total_bytes[p]) {
                        jsonw_key(w, estimate_phase_name((enum est_phase)p));
                        jsonw_u64(w, r->phase_total_bytes[p]);
                }
        jsonw_object_end(w);
        if (in->pipeline_parallel > 1)
                jsonw_kstring(w, "pipeline_stage", r->pipeline_stage ? "last" : "first");
        jsonw_object_end(w);

        jsonw_key(w, "cpu");
        jsonw_object_begin(w);
        jsonw_ku64(w, "total_bytes", r->cpu_total_bytes);
        jsonw_key(w, "components");
        jsonw_object_begin(w);
        for (int c = 0; c < EST_CPU_COMPONENT_COUNT; c++) {
                jsonw_key(w, estimate_cpu_component_name((enum est_cpu_component)c));
                jsonw_u64(w, r->cpu[c]);
        }
        jsonw_object_end(w);
        jsonw_object_end(w);
}

/* Interruptions and checkpoints: the wall time a long run really takes. */
static void write_goodput(struct jsonw *w, const struct est_goodput *gp)
{
        bool finishes = gp->effective_seconds > 0;
        jsonw_key(w, "goodput");
        jsonw_object_begin(w);
        jsonw_kreal(w, "gpu_hours", gp->gpu_hours);
        jsonw_kreal(w, "failures_per_gpu_hour", gp->failures_per_gpu_hour);
        jsonw_kreal(w, "mtbf_seconds", gp->mtbf_seconds);
        jsonw_kreal(w, "expected_interruptions", finishes ? gp->expected_interruptions : NAN);
        jsonw_kreal(w, "checkpoint_bytes", gp->checkpoint_bytes);
        jsonw_kreal(w, "checkpoint_write_bytes_per_s", gp->checkpoint_write_bytes_per_s);
        jsonw_kreal(w, "checkpoint_seconds", gp->checkpoint_seconds);
        jsonw_kreal(w, "checkpoint_blocking_seconds", gp->checkpoint_blocking_seconds);
        jsonw_kreal(w, "checkpoint_interval_s", gp->checkpoint_interval_s);
        jsonw_kbool(w, "interval_optimal", gp->interval_optimal);
        jsonw_kreal(w, "restart_seconds", gp->restart_seconds);
        jsonw_kreal(w, "lost_seconds_per_interruption", gp->lost_seconds_per_interruption);
        jsonw_kreal(w, "goodput", gp->goodput);
        jsonw_kreal(w, "effective_seconds", finishes ? gp->effective_seconds : NAN);
        jsonw_object_end(w);
}

static void write_compute(struct jsonw *w, const struct estimate_result *r,
                          const struct gpu_spec *g)
{
        /* A GPU that cannot run the precision has no time: say so rather
         * than print zeros. */
        bool untimed = g && r->precision_unsupported;

        jsonw_key(w, "compute");
        jsonw_object_begin(w);
        jsonw_kreal(w, "flops_per_step", r->flops_per_step);
        jsonw_kreal(w, "flops_total", r->flops_total);
        jsonw_kreal(w, "steps", r->steps);
        jsonw_kreal(w, "tokens_per_step", r->tokens_per_step);
        jsonw_kreal(w, "seconds_per_step", untimed ? NAN : r->seconds_per_step);
        jsonw_kreal(w, "total_seconds", untimed ? NAN : r->total_seconds);
        jsonw_kreal(w, "tokens_per_second", untimed ? NAN : r->tokens_per_second);
        jsonw_kreal(w, "mfu", r->mfu);
        jsonw_kstring(w, "bottleneck", estimate_bottleneck_name(r->bottleneck));
        jsonw_kstring(w, "gpu", g ? g->id : NULL);
        jsonw_key(w, "bottleneck_detail");
        jsonw_object_begin(w);
        jsonw_kreal(w, "compute_seconds_per_step", r->compute_seconds_per_step);
        jsonw_kreal(w, "communication_seconds_per_step", r->comm_seconds_per_step);
        jsonw_kreal(w, "memory_seconds_per_step", r->memory_seconds_per_step);
        jsonw_kreal(w, "data_loading_seconds_per_step", r->data_seconds_per_step);
        jsonw_kreal(w, "communication_bytes_per_step", r->comm_bytes_per_step);
        jsonw_kreal(w, "link_bytes_per_s", r->link_bytes_per_s);
        jsonw_kreal(w, "peak_flops_per_gpu", r->peak_flops_per_gpu);
        jsonw_kreal(w, "offload_seconds_per_step", r->offload_seconds_per_step);
        jsonw_ku64(w, "paged_overflow_bytes", r->paged_overflow_bytes);
        jsonw_kreal(w, "clock_share", r->clock_share > 0 ? r->clock_share : 1);
        jsonw_object_end(w);
        if (r->goodput.present && !untimed)
                write_goodput(w, &r->goodput);
        if (g) {
                jsonw_kbool(w, "precision_supported", !r->precision_unsupported);
                if (r->precision_unsupported)
                        jsonw_kstring(w, "suggested_precision",
                                      estimate_precision_name(r->suggested_precision));
        }
        jsonw_object_end(w);
}

static void write_inference(struct jsonw *w, const struct estimate_input *in,
                            const struct estimate_result *r, const struct gpu_spec *g)
{
        jsonw_key(w, "inference");
        jsonw_object_begin(w);
        jsonw_kreal(w, "prefill_seconds", r->prefill_seconds);
        jsonw_kreal(w, "decode_tokens_per_second", r->decode_tokens_per_second);
        jsonw_kreal(w, "decode_tokens_per_second_roofline", r->decode_tokens_per_second_roofline);
        jsonw_ku64(w, "decode_bytes_per_token", r->decode_bytes_per_token);
        jsonw_ku64(w, "kv_cache_bytes_per_token", r->kv_bytes_per_token);
        jsonw_object_end(w);
        if (!g || in->arch.kind == MODEL_ENCODER)
                return;
        jsonw_key(w, "serving");
        jsonw_object_begin(w);
        jsonw_kstring(w, "gpu", g->id);
        /* vLLM's default gpu_memory_utilization when the request gives none. */
        jsonw_kreal(w, "gpu_memory_utilization",
                    in->gpu_memory_utilization > 0 ? in->gpu_memory_utilization : 0.9);
        jsonw_ku64(w, "budget_bytes", r->serving_budget_bytes);
        jsonw_ku64(w, "kv_cache_bytes", r->serving_kv_bytes);
        jsonw_ku64(w, "kv_cache_bytes_per_token", r->kv_bytes_per_token);
        jsonw_kint(w, "context_tokens", in->sequence_length);
        jsonw_ku64(w, "concurrent_sequences", r->serving_concurrent_sequences);
        jsonw_ku64(w, "max_context_tokens", r->serving_max_context_tokens);
        jsonw_object_end(w);
}

static void write_fits(struct jsonw *w, const struct estimate_result *r,
                       const struct gpu_spec *gpus, size_t n_gpus,
                       const struct api_fit_heads *heads)
{
        jsonw_key(w, "fits");
        jsonw_array_begin(w);
        for (size_t i = 0; i < r->n_fits; i++) {
                const struct est_fit *f = &r->fits[i];
                if (f->gpu >= n_gpus)
                        continue;
                size_t len;
                const char *head = api_fit_heads_get(heads, gpus, f->gpu, f->memory_bytes, &len);
                if (head)
                        jsonw_raw(w, head, len);
                else
                        api_fit_heads_write(w, &gpus[f->gpu], f->memory_bytes);
                jsonw_kbool(w, "fits", f->fits);
                jsonw_kstring(w, "reason",
                              estimate_fit_reason_name((enum est_fit_reason)f->reason));
                if (f->gpus_needed)
                        jsonw_kint(w, "gpus_needed", f->gpus_needed);
                else
                        jsonw_knull(w, "gpus_needed");
                jsonw_kreal(w, "utilization", f->utilization);
                jsonw_kint(w, "max_batch_size", f->max_batch_size);
                jsonw_object_end(w);
        }
        jsonw_array_end(w);
}

/* One interval as {kind, cases, low_ratio, high_ratio, widened} and the
 * figure's low and high ends under the two names given. */
static void write_interval(struct jsonw *w, const char *key, const struct api_interval *iv,
                           const char *low_key, const char *high_key, double figure)
{
        jsonw_key(w, key);
        jsonw_object_begin(w);
        jsonw_kstring(w, "kind", iv->kind);
        jsonw_kint(w, "cases", iv->cases);
        jsonw_kreal(w, "low_ratio", iv->low_ratio);
        jsonw_kreal(w, "high_ratio", iv->high_ratio);
        jsonw_kbool(w, "widened", iv->widened);
        if (low_key) {
                jsonw_key(w, low_key);
                jsonw_real(w, figure * iv->low_ratio);
                jsonw_key(w, high_key);
                jsonw_real(w, figure * iv->high_ratio);
        }
        jsonw_object_end(w);
}

/* Error bars from the validation: memory, time and cost (time x price). */
static void write_uncertainty(struct jsonw *w, const struct estimate_input *in,
                              const struct estimate_result *r, const struct gpu_spec *g,
                              const struct api_uncertainty *unc)
{
        struct api_interval mem, t;

        api_uncertainty_lookup(unc, in, API_UNC_MEMORY, &mem);
        api_uncertainty_lookup(unc, in, API_UNC_TIME, &t);
        bool timed = g && !r->precision_unsupported && r->total_seconds > 0 && t.present;
        if (!mem.present && !timed)
                return;
        jsonw_key(w, "uncertainty");
        jsonw_object_begin(w);
        if (mem.present)
                write_interval(w, "memory", &mem, "total_bytes_low", "total_bytes_high",
                               (double)r->per_gpu_total_bytes);
        if (timed) {
                write_interval(w, "time", &t, "total_seconds_low", "total_seconds_high",
                               r->total_seconds);
                write_interval(w, "cost", &t, NULL, NULL, 0);
        }
        jsonw_object_end(w);
}

char *estimate_encode_render(const struct estimate_input *in, const struct estimate_result *r,
                             const struct gpu_spec *gpus, size_t n_gpus, size_t *len_out)
{
        return estimate_encode_render_with(in, r, gpus, n_gpus, NULL, NULL, len_out);
}

char *estimate_encode_render_with(const struct estimate_input *in, const struct estimate_result *r,
                                  const struct gpu_spec *gpus, size_t n_gpus,
                                  const struct api_uncertainty *unc,
                                  const struct api_fit_heads *heads, size_t *len_out)
{
        struct jsonw w;
        const struct gpu_spec *g =
                in->gpu_index >= 0 && (size_t)in->gpu_index < n_gpus ? &gpus[in->gpu_index] : NULL;

        jsonw_init(&w, ESTIMATE_TEXT_INITIAL_BYTES, ESTIMATE_TEXT_MAX_BYTES);
        jsonw_object_begin(&w);
        jsonw_key(&w, "model");
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "name", in->arch.name);
        jsonw_ku64(&w, "parameters", r->parameters);
        jsonw_ku64(&w, "trainable_parameters", r->trainable_parameters);
        jsonw_ku64(&w, "checkpoint_parameters", r->checkpoint_parameters);
        jsonw_key(&w, "architecture");
        write_arch(&w, &in->arch);
        jsonw_object_end(&w);
        write_input(&w, in);
        write_memory(&w, in, r);
        write_compute(&w, r, g);
        if (in->mode == EST_INFERENCE)
                write_inference(&w, in, r, g);
        if (unc)
                write_uncertainty(&w, in, r, g, unc);
        write_fits(&w, r, gpus, n_gpus, heads);
        write_notes(&w, "suggestions", r->suggestions, r->n_suggestions, true);
        write_notes(&w, "assumptions", r->assumptions, r->n_assumptions, false);
        write_notes(&w, "warnings", r->warnings, r->n_warnings, false);
        jsonw_object_end(&w);
        return jsonw_finish(&w, len_out);
}

/* The tree of text this file wrote (NULL when text is NULL or memory ran out); frees text. */
static json_t *parse_own(char *text, size_t len)
{
        json_t *doc = text ? json_loadb(text, len, 0, NULL) : NULL;
        free(text);
        return doc;
}

json_t *estimate_encode_result(const struct estimate_input *in, const struct estimate_result *r,
                               const struct gpu_spec *gpus, size_t n_gpus)
{
        size_t len = 0;
        char *text = estimate_encode_render(in, r, gpus, n_gpus, &len);
        return parse_own(text, len);
}

json_t *estimate_encode_arch(const struct model_arch *a)
{
        struct jsonw w;
        size_t len = 0;
        char *text;

        jsonw_init(&w, 1024, 64 * 1024);
        write_arch(&w, a);
        text = jsonw_finish(&w, &len);
        return parse_own(text, len);
}
