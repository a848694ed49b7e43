/*
 * validate.c - checks on an estimate_input as a whole: ranges, divisibility
 * of the parallel layout, and contradictions between fields (qlora without
 * 4-bit weights, offload for inference, ...).  Refusals name the field by
 * JSON pointer; tolerable oddities become warnings.
 */
#include "core/estimate_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int validate_input(const struct estimate_input *in, struct estimate_result *res,
                   struct estimate_error *err)
{
        const struct model_arch *a = &in->arch;
        bool training = in->mode != EST_INFERENCE;

        if ((unsigned)in->mode >= EST_MODE_COUNT)
                return estimate_fail(err, "/workload/mode", "enum", "unknown mode");
        if (in->batch_size < 1 || in->batch_size > 1048576)
                return estimate_fail(err, "/workload/batch_size", "range",
                                     "batch_size must be 1..1048576");
        if (in->sequence_length < 1 || in->sequence_length > 16777216)
                return estimate_fail(err, "/workload/sequence_length", "range",
                                     "sequence_length must be 1..16777216");
        if (in->gradient_accumulation < 1 || in->gradient_accumulation > 1048576)
                return estimate_fail(err, "/workload/gradient_accumulation", "range",
                                     "gradient_accumulation must be 1..1048576");
        if (in->num_labels < 1 || in->num_labels > 1000000)
                return estimate_fail(err, "/workload/num_labels", "range",
                                     "num_labels must be 1..1000000");
        if (in->gpus < 1 || in->gpus > EST_GPUS_MAX)
                return estimate_fail(err, "/parallelism/gpus", "range", "gpus must be 1..4096");
        if (in->nodes < 1 || in->nodes > in->gpus)
                return estimate_fail(err, "/parallelism/nodes", "range", "nodes must be 1..gpus");
        if (in->gpus % in->nodes)
                return estimate_fail(
                        err, "/parallelism/nodes", "divides",
                        "gpus must be a multiple of nodes (the same number of GPUs per node)");
        if (in->tensor_parallel < 1 || in->tensor_parallel > 1024)
                return estimate_fail(err, "/parallelism/tensor_parallel", "range",
                                     "tensor_parallel must be 1..1024");
        if (in->pipeline_parallel < 1 || in->pipeline_parallel > 1024)
                return estimate_fail(err, "/parallelism/pipeline_parallel", "range",
                                     "pipeline_parallel must be 1..1024");
        if ((uint64_t)in->tensor_parallel * in->pipeline_parallel > in->gpus ||
            in->gpus % (in->tensor_parallel * in->pipeline_parallel))
                return estimate_fail(
                        err, "/parallelism/gpus", "divides",
                        "gpus must be a multiple of tensor_parallel x pipeline_parallel");
        if (in->tensor_parallel > 1 && a->heads % in->tensor_parallel)
                return estimate_fail(err, "/parallelism/tensor_parallel", "divides",
                                     "tensor_parallel must divide the number of attention heads");
        if (in->tensor_parallel > 1 && a->kv_heads >= in->tensor_parallel &&
            a->kv_heads % in->tensor_parallel)
                return estimate_fail(
                        err, "/parallelism/tensor_parallel", "divides",
                        "tensor_parallel must divide the number of key/value heads (or exceed it)");
        if (in->tensor_parallel > 1 && a->kv_heads < in->tensor_parallel &&
            in->tensor_parallel % a->kv_heads)
                return estimate_fail(
                        err, "/parallelism/tensor_parallel", "divides",
                        "with fewer key/value heads than GPUs, tensor_parallel must be a "
                        "multiple of them");
        if (in->pipeline_parallel > a->layers + a->decoder_layers)
                return estimate_fail(err, "/parallelism/pipeline_parallel", "range",
                                     "pipeline_parallel cannot exceed the number of layers");
        if (in->pipeline_parallel > 1) {
                uint32_t m = in->micro_batches ? in->micro_batches : 1;
                if (m > in->batch_size || in->batch_size % m)
                        return estimate_fail(err, "/parallelism/micro_batches", "divides",
                                             "batch_size must be divisible by micro_batches");
        } else if (in->micro_batches > 1) {
                return estimate_fail(
                        err, "/parallelism/micro_batches", "contradiction",
                        "micro_batches splits a batch across pipeline stages; it needs "
                        "pipeline_parallel > 1");
        }
        if (in->sequence_parallel && in->tensor_parallel < 2)
                return estimate_fail(
                        err, "/parallelism/sequence_parallel", "contradiction",
                        "sequence parallelism shards along tensor-parallel ranks; it needs "
                        "tensor_parallel > 1");
        if (training && in->logits == EST_LOGITS_LOSS_PARALLEL && in->tensor_parallel < 2)
                return estimate_fail(err, "/memory_savers/logits", "contradiction",
                                     "loss_parallel computes the loss on logits sharded over "
                                     "tensor-parallel ranks; it needs tensor_parallel > 1 (use "
                                     "upcast_in_loss without tensor parallelism)");
        if ((in->strategy == EST_SINGLE) && in->gpus > 1 &&
            in->tensor_parallel * in->pipeline_parallel != in->gpus)
                return estimate_fail(
                        err, "/parallelism/strategy", "contradiction",
                        "strategy single with several GPUs: choose ddp, zero1-3 or fsdp for "
                        "data parallelism");
        if (in->strategy == EST_FSDP && in->fsdp_sharding == EST_FSDP_HYBRID_SHARD && in->nodes < 2)
                WARN(res, EST_W_SHARDING_ONE_GPU, 0, 0);
        if (in->offload != EST_OFFLOAD_NONE && !training)
                return estimate_fail(
                        err, "/parallelism/offload", "contradiction",
                        "optimizer/parameter offload applies to training; inference has no "
                        "optimizer");
        if (in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS && in->strategy != EST_ZERO3 &&
            !(in->strategy == EST_FSDP && in->fsdp_sharding != EST_FSDP_SHARD_GRAD_OP))
                return estimate_fail(err, "/parallelism/offload", "contradiction",
                                     "parameter offload needs zero3 or fsdp full/hybrid sharding");
        if (in->offload == EST_OFFLOAD_OPTIMIZER &&
            (in->strategy == EST_SINGLE || in->strategy == EST_DDP))
                ASSUME(res, EST_A_DDP_OFFLOAD_AS_ZERO, 0, 0);
        if (!training && in->strategy != EST_SINGLE && in->strategy != EST_DDP)
                return estimate_fail(
                        err, "/parallelism/strategy", "contradiction",
                        "zero and fsdp shard training state; for inference use tensor_parallel");

        /* Quantization and LoRA. */
        if (in->mode == EST_QLORA && in->quantization != EST_QUANT_NF4 &&
            in->quantization != EST_QUANT_INT4)
                return estimate_fail(
                        err, "/quantization", "contradiction",
                        "qlora trains adapters over 4-bit base weights: quantization must be "
                        "nf4 or int4");
        if (in->mode == EST_QLORA && (in->precision == EST_FP32 || in->precision == EST_TF32))
                WARN(res, EST_W_QLORA_FP32_COMPUTE, 0, 0);
        if ((in->mode == EST_FINE_TUNE || in->mode == EST_PRE_TRAIN) &&
            in->quantization != EST_QUANT_NONE)
                return estimate_fail(
                        err, "/quantization", "contradiction",
                        "full training updates every weight and cannot keep them quantized; "
                        "use lora/qlora");
        if (in->mode == EST_LORA && in->quantization != EST_QUANT_NONE)
                WARN(res, EST_W_LORA_QUANT_IS_QLORA, 0, 0);
        if (in->quantization != EST_QUANT_NONE &&
            (in->precision == EST_FP32 || in->precision == EST_TF32) && in->mode == EST_INFERENCE)
                WARN(res, EST_W_QLORA_FP32_COMPUTE, 0, 0);
        if (in->quantization == EST_QUANT_MXFP4 &&
            (in->arch.experts < 2 || in->arch.active_experts >= in->arch.experts))
                return estimate_fail(err, "/quantization", "contradiction",
                                     "mxfp4 stores the routed experts' weights (gpt-oss); this "
                                     "model has no routed experts: use int4, nf4, int8 or fp8");
        if (in->quantization == EST_QUANT_INT4 &&
            (in->quant_group_size < 16 || in->quant_group_size > 65536))
                return estimate_fail(err, "/quantization_group_size", "range",
                                     "group size must be 16..65536");
        if (in->arch.generic)
                WARN(res, EST_W_GENERIC_DECODER, 0, 0);
        if (training && (in->mode == EST_LORA || in->mode == EST_QLORA)) {
                if (in->lora_rank < 1 || in->lora_rank > 65536)
                        return estimate_fail(err, "/workload/lora/rank", "range",
                                             "rank must be 1..65536");
                if (in->lora_targets == 0 || (in->lora_targets & ~EST_LORA_VALID))
                        return estimate_fail(err, "/workload/lora/targets", "enum",
                                             "no valid target matrices");
        }
        if (in->strategy >= EST_ZERO1 && in->strategy <= EST_FSDP && in->gpus == 1) {
                if (in->strategy == EST_ZERO3 || in->strategy == EST_FSDP)
                        WARN(res, EST_W_ZERO3_ONE_GPU, 0, 0);
                else
                        WARN(res, EST_W_SHARDING_ONE_GPU, 0, 0);
        }
        if (in->optimizer_in_backward && in->gradient_accumulation > 1)
                return estimate_fail(
                        err, "/memory_savers/optimizer_in_backward", "contradiction",
                        "optimizer_in_backward frees each gradient as soon as it is applied, "
                        "so it cannot accumulate gradients over micro-batches");
        if (in->optimizer_in_backward && in->strategy != EST_SINGLE)
                return estimate_fail(
                        err, "/memory_savers/optimizer_in_backward", "contradiction",
                        "optimizer_in_backward is a single-device technique (torchtune, litgpt)");
        if (in->activation_offload && !training)
                WARN(res, EST_W_ACT_OFFLOAD_INFERENCE, 0, 0);
        if (!training && (in->set & EST_SET_OPTIMIZER))
                WARN(res, EST_W_INFERENCE_OPTIMIZER, 0, 0);
        if (in->optimizer >= EST_OPT_PAGED_ADAMW && training)
                WARN(res, EST_W_PAGED, 0, 0);
        if (in->precision == EST_FP16 && training)
                WARN(res, EST_W_FP16_PURE, 0, 0);
        if (in->mfu < 0 || in->mfu > 1)
                return estimate_fail(err, "/mfu", "range", "mfu must be in (0, 1]");
        if (in->gpu_memory_utilization < 0 || in->gpu_memory_utilization > 1)
                return estimate_fail(err, "/serving/gpu_memory_utilization", "range",
                                     "gpu_memory_utilization must be in (0, 1]");
        if (in->epochs < 0 || in->epochs > 1e6)
                return estimate_fail(err, "/workload/dataset/epochs", "range",
                                     "epochs must be 0..1e6");
        if (!(in->cuda_context_bytes >= 0 && in->cuda_context_bytes <= 64.0 * GIB))
                return estimate_fail(err, "/runtime/cuda_context_bytes", "range",
                                     "cuda_context_bytes must be 0..64 GiB");
        if (!(in->allocator_reserve_fraction >= 0 && in->allocator_reserve_fraction <= 1))
                return estimate_fail(err, "/runtime/allocator_reserve_fraction", "range",
                                     "allocator_reserve_fraction must be 0..1");
        if ((in->set & EST_SET_HELD) &&
            !(in->allocator_held_fraction >= 0 && in->allocator_held_fraction <= 1))
                return estimate_fail(err, "/runtime/allocator_reserve_fraction", "range",
                                     "the held part of the reserve must be 0..1");
        if (!(in->data_samples_per_s >= 0 && in->data_samples_per_s <= 1e12))
                return estimate_fail(err, "/runtime/data_samples_per_s", "range",
                                     "data_samples_per_s must be 0..1e12");
        if (!in->fsdp_limit_all_gathers && !(in->strategy == EST_FSDP && in->fsdp_version == 1))
                return estimate_fail(err, "/parallelism/fsdp_limit_all_gathers", "contradiction",
                                     "limit_all_gathers is an option of FSDP1 "
                                     "(strategy fsdp, fsdp_version 1)");
        if (in->fsdp_forward_shards > 0) {
                uint32_t dp = in->gpus / (in->tensor_parallel * in->pipeline_parallel);
                if (!(in->strategy == EST_FSDP && in->fsdp_version == 2))
                        return estimate_fail(err, "/parallelism/fsdp_reshard_after_forward",
                                             "contradiction",
                                             "reshard_after_forward is an option of FSDP2 "
                                             "(strategy fsdp, fsdp_version 2)");
                if (in->fsdp_forward_shards > 1 &&
                    (dp == 0 || in->fsdp_forward_shards > dp || dp % in->fsdp_forward_shards))
                        return estimate_fail(err, "/parallelism/fsdp_reshard_after_forward",
                                             "divides",
                                             "an integer reshard_after_forward must divide the "
                                             "data-parallel ranks (gpus / (tensor_parallel x "
                                             "pipeline_parallel))");
        }
        bool float8 = training && (in->mode == EST_FINE_TUNE || in->mode == EST_PRE_TRAIN) &&
                      in->precision == EST_FP8_MIXED;
        if (in->float8_all_gather && !(float8 && in->strategy == EST_FSDP))
                return estimate_fail(err, "/parallelism/fsdp_float8_all_gather", "contradiction",
                                     "float8 all-gather applies to full training with precision "
                                     "fp8_mixed (torchao float8 linears) under strategy fsdp");
        if (in->float8_recompute_weight && !float8)
                return estimate_fail(err, "/memory_savers/float8_recompute_weight", "contradiction",
                                     "float8_recompute_weight applies to full training with "
                                     "precision fp8_mixed (torchao float8 linears)");
        if (in->gradients_persist && in->optimizer_in_backward)
                return estimate_fail(err, "/runtime/gradients_persist", "contradiction",
                                     "optimizer_in_backward frees each gradient as it is "
                                     "applied; gradients cannot persist between steps");

        /* Inference context. */
        if (!training && (in->set & EST_SET_PROMPT) && (in->set & EST_SET_GENERATED) &&
            (in->set & EST_SET_SEQUENCE) &&
            (uint64_t)in->prompt_tokens + in->generated_tokens != in->sequence_length)
                return estimate_fail(err, "/workload/sequence_length", "contradiction",
                                     "sequence_length must equal prompt_tokens + generated_tokens");
        if (!training && in->generated_tokens > in->sequence_length)
                return estimate_fail(err, "/workload/generated_tokens", "range",
                                     "generated_tokens cannot exceed the whole context");
        if (a->kind == MODEL_ENCODER && !training && in->generated_tokens > 0)
                return estimate_fail(err, "/workload/generated_tokens", "contradiction",
                                     "an encoder does not generate tokens");
        if (in->target_length > 16777216)
                return estimate_fail(err, "/workload/target_length", "range",
                                     "target_length must be 1..16777216");
        if (in->target_length > 0 && a->kind != MODEL_ENCODER_DECODER)
                return estimate_fail(err, "/workload/target_length", "contradiction",
                                     "target_length is the decoder's length of an "
                                     "encoder-decoder (T5, BART); this model reads and writes "
                                     "sequence_length tokens");
        if (in->target_length > 0 && !training)
                return estimate_fail(err, "/workload/target_length", "contradiction",
                                     "target_length applies to training; inference uses "
                                     "prompt_tokens and generated_tokens");
        if (in->sequence_length > a->max_positions) {
                if (a->position == MODEL_POS_LEARNED)
                        return estimate_fail(
                                err, "/workload/sequence_length", "range",
                                "sequence_length exceeds the model's learned position table");
                WARN(res, EST_W_SEQUENCE_BEYOND_MAX, in->sequence_length, a->max_positions);
        }
        return 0;
}
