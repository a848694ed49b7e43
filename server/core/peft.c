/*
 * peft.c - LoRA target and modules_to_save names per architecture (see
 * peft.h).
 *
 * Module paths are those of one block of each family's transformers
 * modeling file (modeling_llama.py, modeling_bert.py, modeling_gpt2.py,
 * modeling_t5.py, modeling_mixtral.py, modeling_gpt_neox.py,
 * modeling_falcon.py, modeling_phi3.py, modeling_opt.py, modeling_gptj.py,
 * modeling_distilbert.py, modeling_deberta_v2.py, modeling_modernbert.py,
 * modeling_mpt.py, modeling_starcoder2.py, modeling_bart.py, and
 * InternLM2's remote modeling_internlm2.py),
 * plus torchtune's (torchtune/modules/transformer.py, attention.py,
 * feed_forward.py: attn.q_proj .. attn.output_proj, mlp.w1/w2/w3, output)
 * and litgpt's (litgpt/model.py: attn.qkv, attn.proj, mlp.fc_1, mlp.fc_2,
 * mlp.proj, lm_head; litgpt/finetune/lora.py's lora_query .. lora_head
 * switches) for the LLaMA-shaped decoders those libraries build.
 */
#include "core/peft.h"

#include <stdio.h>
#include <string.h>

#include "core/estimate.h"

enum gate_rule {
        ANY = 0, /* the module exists whatever the MLP */
        GATED,   /* only in a gated MLP (T5 v1.1 wi_0 / wi_1) */
        UNGATED, /* only in an ungated MLP (T5 v1.0 wi) */
        QDIRECT, /* MLA without q_lora_rank: q_proj (DeepSeek-V2-Lite) */
        QLATENT, /* MLA with q_lora_rank: q_a_proj and q_b_proj */
};

struct module {
        const char *path; /* one block's module path, or a switch name */
        unsigned bits;    /* EST_LORA_* for targets, EST_SAVE_* for saves */
        enum gate_rule gate;
};

struct scheme {
        const char *name;
        const struct module *targets;
        const struct module *saves;
};

#define QKV_SEP (EST_LORA_Q | EST_LORA_K | EST_LORA_V)
#define MLP_ALL (EST_LORA_GATE | EST_LORA_UP | EST_LORA_DOWN)

static const struct module llama_targets[] = {
        /* transformers LlamaForCausalLM (and Mistral, Qwen2/3, Gemma, ...) */
        {"model.layers.0.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.layers.0.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.layers.0.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.layers.0.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.0.mlp.gate_proj", EST_LORA_GATE, ANY},
        {"model.layers.0.mlp.up_proj", EST_LORA_UP, ANY},
        {"model.layers.0.mlp.down_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        /* torchtune TransformerDecoder: w1 gate, w2 down, w3 up */
        {"layers.0.attn.output_proj", EST_LORA_O, ANY},
        {"layers.0.mlp.w1", EST_LORA_GATE, ANY},
        {"layers.0.mlp.w2", EST_LORA_DOWN, ANY},
        {"layers.0.mlp.w3", EST_LORA_UP, ANY},
        {"output", EST_LORA_LM_HEAD, ANY},
        {"tok_embeddings", EST_LORA_EMBED, ANY},
        /* litgpt GPT: one qkv linear whose LoRA enables q, k and v parts */
        {"transformer.h.0.attn.qkv", QKV_SEP, ANY},
        {"transformer.h.0.attn.proj", EST_LORA_O, ANY},
        {"transformer.h.0.mlp.fc_1", EST_LORA_GATE, ANY},
        {"transformer.h.0.mlp.fc_2", EST_LORA_UP, ANY},
        {"transformer.h.0.mlp.proj", EST_LORA_DOWN, ANY},
        {"lora_query", EST_LORA_Q, ANY},
        {"lora_key", EST_LORA_K, ANY},
        {"lora_value", EST_LORA_V, ANY},
        {"lora_projection", EST_LORA_O, ANY},
        {"lora_mlp", MLP_ALL, ANY},
        {"lora_head", EST_LORA_LM_HEAD, ANY},
        {NULL, 0, ANY},
};

static const struct module llama_saves[] = {
        {"lm_head", EST_SAVE_LM_HEAD, ANY},       {"model.embed_tokens", EST_SAVE_EMBED, ANY},
        {"output", EST_SAVE_LM_HEAD, ANY},        {"tok_embeddings", EST_SAVE_EMBED, ANY},
        {"transformer.wte", EST_SAVE_EMBED, ANY}, {"score", EST_SAVE_CLASSIFIER, ANY},
        {"classifier", EST_SAVE_CLASSIFIER, ANY}, {NULL, 0, ANY},
};

/* MixtralSparseMoeBlock: experts.N.w1 (gate), w2 (down), w3 (up). */
static const struct module mixtral_targets[] = {
        {"model.layers.0.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.layers.0.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.layers.0.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.layers.0.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.0.block_sparse_moe.experts.0.w1", EST_LORA_GATE, ANY},
        {"model.layers.0.block_sparse_moe.experts.0.w2", EST_LORA_DOWN, ANY},
        {"model.layers.0.block_sparse_moe.experts.0.w3", EST_LORA_UP, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* BertModel / RobertaModel / XLMRobertaModel (and XL): three modules end in
 * "dense" — the attention output, the intermediate (up) and the block
 * output (down) projections. */
static const struct module bert_targets[] = {
        {"encoder.layer.0.attention.self.query", EST_LORA_Q, ANY},
        {"encoder.layer.0.attention.self.key", EST_LORA_K, ANY},
        {"encoder.layer.0.attention.self.value", EST_LORA_V, ANY},
        {"encoder.layer.0.attention.output.dense", EST_LORA_O, ANY},
        {"encoder.layer.0.intermediate.dense", EST_LORA_UP, ANY},
        {"encoder.layer.0.output.dense", EST_LORA_DOWN, ANY},
        {"embeddings.word_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module bert_saves[] = {
        {"classifier", EST_SAVE_CLASSIFIER, ANY},
        {"score", EST_SAVE_CLASSIFIER, ANY},
        {"embeddings.word_embeddings", EST_SAVE_EMBED, ANY},
        {"embed_tokens", EST_SAVE_EMBED, ANY},
        {"lm_head", EST_SAVE_LM_HEAD, ANY},
        {NULL, 0, ANY},
};

/* GPT2Model: Conv1D c_attn is q, k and v fused; two modules end in c_proj. */
static const struct module gpt2_targets[] = {
        {"transformer.h.0.attn.c_attn", EST_LORA_QKV, ANY},
        {"transformer.h.0.attn.c_proj", EST_LORA_O, ANY},
        {"transformer.h.0.mlp.c_fc", EST_LORA_UP, ANY},
        {"transformer.h.0.mlp.c_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"transformer.wte", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module gpt2_saves[] = {
        {"lm_head", EST_SAVE_LM_HEAD, ANY},       {"transformer.wte", EST_SAVE_EMBED, ANY},
        {"embed_tokens", EST_SAVE_EMBED, ANY},    {"score", EST_SAVE_CLASSIFIER, ANY},
        {"classifier", EST_SAVE_CLASSIFIER, ANY}, {NULL, 0, ANY},
};

/* T5Stack: q, k, v, o in SelfAttention and EncDecAttention; wi (v1.0) or
 * wi_0 (gate) and wi_1 (up) in T5 v1.1 / Flan-T5 / mT5; wo (down). */
static const struct module t5_targets[] = {
        {"encoder.block.0.layer.0.SelfAttention.q", EST_LORA_Q, ANY},
        {"encoder.block.0.layer.0.SelfAttention.k", EST_LORA_K, ANY},
        {"encoder.block.0.layer.0.SelfAttention.v", EST_LORA_V, ANY},
        {"encoder.block.0.layer.0.SelfAttention.o", EST_LORA_O, ANY},
        {"decoder.block.0.layer.1.EncDecAttention.q", EST_LORA_Q, ANY},
        {"decoder.block.0.layer.1.EncDecAttention.k", EST_LORA_K, ANY},
        {"decoder.block.0.layer.1.EncDecAttention.v", EST_LORA_V, ANY},
        {"decoder.block.0.layer.1.EncDecAttention.o", EST_LORA_O, ANY},
        {"encoder.block.0.layer.1.DenseReluDense.wi", EST_LORA_UP, UNGATED},
        {"encoder.block.0.layer.1.DenseReluDense.wi_0", EST_LORA_GATE, GATED},
        {"encoder.block.0.layer.1.DenseReluDense.wi_1", EST_LORA_UP, GATED},
        {"encoder.block.0.layer.1.DenseReluDense.wo", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"shared", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module t5_saves[] = {
        {"lm_head", EST_SAVE_LM_HEAD, ANY},
        {"shared", EST_SAVE_EMBED, ANY},
        {"embed_tokens", EST_SAVE_EMBED, ANY},
        {"classifier", EST_SAVE_CLASSIFIER, ANY},
        {NULL, 0, ANY},
};

/* GPTNeoXLayer: fused query_key_value; dense_h_to_4h / dense_4h_to_h. */
static const struct module neox_targets[] = {
        {"gpt_neox.layers.0.attention.query_key_value", EST_LORA_QKV, ANY},
        {"gpt_neox.layers.0.attention.dense", EST_LORA_O, ANY},
        {"gpt_neox.layers.0.mlp.dense_h_to_4h", EST_LORA_UP, ANY},
        {"gpt_neox.layers.0.mlp.dense_4h_to_h", EST_LORA_DOWN, ANY},
        {"embed_out", EST_LORA_LM_HEAD, ANY},
        {"gpt_neox.embed_in", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module neox_saves[] = {
        {"embed_out", EST_SAVE_LM_HEAD, ANY},       {"lm_head", EST_SAVE_LM_HEAD, ANY},
        {"gpt_neox.embed_in", EST_SAVE_EMBED, ANY}, {"embed_tokens", EST_SAVE_EMBED, ANY},
        {"score", EST_SAVE_CLASSIFIER, ANY},        {NULL, 0, ANY},
};

/* FalconDecoderLayer and BloomBlock: self_attention.query_key_value. */
static const struct module falcon_targets[] = {
        {"transformer.h.0.self_attention.query_key_value", EST_LORA_QKV, ANY},
        {"transformer.h.0.self_attention.dense", EST_LORA_O, ANY},
        {"transformer.h.0.mlp.dense_h_to_4h", EST_LORA_UP, ANY},
        {"transformer.h.0.mlp.dense_4h_to_h", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"transformer.word_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module falcon_saves[] = {
        {"lm_head", EST_SAVE_LM_HEAD, ANY},
        {"transformer.word_embeddings", EST_SAVE_EMBED, ANY},
        {"embed_tokens", EST_SAVE_EMBED, ANY},
        {"score", EST_SAVE_CLASSIFIER, ANY},
        {NULL, 0, ANY},
};

/* Phi3DecoderLayer: fused qkv_proj and gate_up_proj. */
static const struct module phi3_targets[] = {
        {"model.layers.0.self_attn.qkv_proj", EST_LORA_QKV, ANY},
        {"model.layers.0.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.0.mlp.gate_up_proj", EST_LORA_GATE_UP, ANY},
        {"model.layers.0.mlp.down_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* OPTDecoderLayer: out_proj, fc1, fc2. */
static const struct module opt_targets[] = {
        {"model.decoder.layers.0.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.decoder.layers.0.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.decoder.layers.0.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.decoder.layers.0.self_attn.out_proj", EST_LORA_O, ANY},
        {"model.decoder.layers.0.fc1", EST_LORA_UP, ANY},
        {"model.decoder.layers.0.fc2", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.decoder.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* GPTJBlock: attn.q/k/v_proj, out_proj; mlp.fc_in, fc_out. */
static const struct module gptj_targets[] = {
        {"transformer.h.0.attn.q_proj", EST_LORA_Q, ANY},
        {"transformer.h.0.attn.k_proj", EST_LORA_K, ANY},
        {"transformer.h.0.attn.v_proj", EST_LORA_V, ANY},
        {"transformer.h.0.attn.out_proj", EST_LORA_O, ANY},
        {"transformer.h.0.mlp.fc_in", EST_LORA_UP, ANY},
        {"transformer.h.0.mlp.fc_out", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"transformer.wte", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* DistilBertModel: attention q_lin .. out_lin, ffn lin1 / lin2; the
 * sequence classifier adds pre_classifier before classifier. */
static const struct module distilbert_targets[] = {
        {"distilbert.transformer.layer.0.attention.q_lin", EST_LORA_Q, ANY},
        {"distilbert.transformer.layer.0.attention.k_lin", EST_LORA_K, ANY},
        {"distilbert.transformer.layer.0.attention.v_lin", EST_LORA_V, ANY},
        {"distilbert.transformer.layer.0.attention.out_lin", EST_LORA_O, ANY},
        {"distilbert.transformer.layer.0.ffn.lin1", EST_LORA_UP, ANY},
        {"distilbert.transformer.layer.0.ffn.lin2", EST_LORA_DOWN, ANY},
        {"distilbert.embeddings.word_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module distilbert_saves[] = {
        {"pre_classifier", EST_SAVE_CLASSIFIER, ANY},
        {"classifier", EST_SAVE_CLASSIFIER, ANY},
        {"distilbert.embeddings.word_embeddings", EST_SAVE_EMBED, ANY},
        {NULL, 0, ANY},
};

/* DebertaV2Layer (DeBERTa v2 / v3): query_proj, key_proj, value_proj, then
 * BERT's attention.output.dense, intermediate.dense and output.dense. */
static const struct module deberta_targets[] = {
        {"deberta.encoder.layer.0.attention.self.query_proj", EST_LORA_Q, ANY},
        {"deberta.encoder.layer.0.attention.self.key_proj", EST_LORA_K, ANY},
        {"deberta.encoder.layer.0.attention.self.value_proj", EST_LORA_V, ANY},
        {"deberta.encoder.layer.0.attention.output.dense", EST_LORA_O, ANY},
        {"deberta.encoder.layer.0.intermediate.dense", EST_LORA_UP, ANY},
        {"deberta.encoder.layer.0.output.dense", EST_LORA_DOWN, ANY},
        {"deberta.embeddings.word_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* ModernBertEncoderLayer: fused attn.Wqkv, attn.Wo; mlp.Wi holds the GLU's
 * input and gate halves, mlp.Wo projects down ("Wo" names both). */
static const struct module modernbert_targets[] = {
        {"model.layers.0.attn.Wqkv", EST_LORA_QKV, ANY},
        {"model.layers.0.attn.Wo", EST_LORA_O, ANY},
        {"model.layers.0.mlp.Wi", EST_LORA_GATE_UP, ANY},
        {"model.layers.0.mlp.Wo", EST_LORA_DOWN, ANY},
        {"model.embeddings.tok_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module modernbert_saves[] = {
        {"head", EST_SAVE_CLASSIFIER, ANY},
        {"classifier", EST_SAVE_CLASSIFIER, ANY},
        {"model.embeddings.tok_embeddings", EST_SAVE_EMBED, ANY},
        {NULL, 0, ANY},
};

/* MptBlock: fused attn.Wqkv, attn.out_proj; ffn.up_proj / ffn.down_proj;
 * the head is tied to transformer.wte. */
static const struct module mpt_targets[] = {
        {"transformer.blocks.0.attn.Wqkv", EST_LORA_QKV, ANY},
        {"transformer.blocks.0.attn.out_proj", EST_LORA_O, ANY},
        {"transformer.blocks.0.ffn.up_proj", EST_LORA_UP, ANY},
        {"transformer.blocks.0.ffn.down_proj", EST_LORA_DOWN, ANY},
        {"transformer.wte", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* Starcoder2DecoderLayer: LLaMA's attention names, a GELU MLP c_fc / c_proj. */
static const struct module starcoder2_targets[] = {
        {"model.layers.0.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.layers.0.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.layers.0.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.layers.0.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.0.mlp.c_fc", EST_LORA_UP, ANY},
        {"model.layers.0.mlp.c_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* BartEncoderLayer / BartDecoderLayer (and mBART): self_attn and
 * encoder_attn q_proj .. out_proj, fc1 / fc2; embeddings shared. */
static const struct module bart_targets[] = {
        {"model.encoder.layers.0.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.encoder.layers.0.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.encoder.layers.0.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.encoder.layers.0.self_attn.out_proj", EST_LORA_O, ANY},
        {"model.decoder.layers.0.encoder_attn.q_proj", EST_LORA_Q, ANY},
        {"model.decoder.layers.0.encoder_attn.k_proj", EST_LORA_K, ANY},
        {"model.decoder.layers.0.encoder_attn.v_proj", EST_LORA_V, ANY},
        {"model.decoder.layers.0.encoder_attn.out_proj", EST_LORA_O, ANY},
        {"model.encoder.layers.0.fc1", EST_LORA_UP, ANY},
        {"model.encoder.layers.0.fc2", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.shared", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct module bart_saves[] = {
        {"lm_head", EST_SAVE_LM_HEAD, ANY},
        {"model.shared", EST_SAVE_EMBED, ANY},
        {"embed_tokens", EST_SAVE_EMBED, ANY},
        {"classification_head", EST_SAVE_CLASSIFIER, ANY},
        {NULL, 0, ANY},
};

/* InternLM2DecoderLayer: fused attention.wqkv, attention.wo;
 * feed_forward.w1 (gate), w3 (up), w2 (down); output, tok_embeddings. */
static const struct module internlm2_targets[] = {
        {"model.layers.0.attention.wqkv", EST_LORA_QKV, ANY},
        {"model.layers.0.attention.wo", EST_LORA_O, ANY},
        {"model.layers.0.feed_forward.w1", EST_LORA_GATE, ANY},
        {"model.layers.0.feed_forward.w3", EST_LORA_UP, ANY},
        {"model.layers.0.feed_forward.w2", EST_LORA_DOWN, ANY},
        {"output", EST_LORA_LM_HEAD, ANY},
        {"model.tok_embeddings", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* DeepseekV2/V3DecoderLayer: multi-head latent attention (q_proj, or
 * q_a_proj and q_b_proj with q_lora_rank; kv_a_proj_with_mqa, kv_b_proj,
 * o_proj); the MLP names cover the dense blocks, every routed expert and
 * the shared experts alike. */
static const struct module deepseek_targets[] = {
        {"model.layers.0.self_attn.q_proj", EST_LORA_Q, QDIRECT},
        {"model.layers.0.self_attn.q_a_proj", EST_LORA_Q_A, QLATENT},
        {"model.layers.0.self_attn.q_b_proj", EST_LORA_Q_B, QLATENT},
        {"model.layers.0.self_attn.kv_a_proj_with_mqa", EST_LORA_KV_A, ANY},
        {"model.layers.0.self_attn.kv_b_proj", EST_LORA_KV_B, ANY},
        {"model.layers.0.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.3.mlp.experts.0.gate_proj", EST_LORA_GATE, ANY},
        {"model.layers.3.mlp.experts.0.up_proj", EST_LORA_UP, ANY},
        {"model.layers.3.mlp.experts.0.down_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

/* Qwen3-Next / Qwen3.5: LLaMA's names on the full-attention blocks and
 * the MLPs (experts.N.gate_proj, shared_expert.gate_proj), and the Gated
 * DeltaNet projections of the linear blocks (modeling_qwen3_next.py). */
static const struct module qwen3_next_targets[] = {
        {"model.layers.3.self_attn.q_proj", EST_LORA_Q, ANY},
        {"model.layers.3.self_attn.k_proj", EST_LORA_K, ANY},
        {"model.layers.3.self_attn.v_proj", EST_LORA_V, ANY},
        {"model.layers.3.self_attn.o_proj", EST_LORA_O, ANY},
        {"model.layers.0.linear_attn.in_proj_qkvz", EST_LORA_LIN_QKVZ, ANY},
        {"model.layers.0.linear_attn.in_proj_qkv", EST_LORA_LIN_QKVZ, ANY},
        {"model.layers.0.linear_attn.in_proj_z", EST_LORA_LIN_QKVZ, ANY},
        {"model.layers.0.linear_attn.in_proj_ba", EST_LORA_LIN_BA, ANY},
        {"model.layers.0.linear_attn.in_proj_b", EST_LORA_LIN_BA, ANY},
        {"model.layers.0.linear_attn.in_proj_a", EST_LORA_LIN_BA, ANY},
        {"model.layers.0.linear_attn.out_proj", EST_LORA_LIN_OUT, ANY},
        {"model.layers.0.mlp.experts.0.gate_proj", EST_LORA_GATE, ANY},
        {"model.layers.0.mlp.experts.0.up_proj", EST_LORA_UP, ANY},
        {"model.layers.0.mlp.experts.0.down_proj", EST_LORA_DOWN, ANY},
        {"lm_head", EST_LORA_LM_HEAD, ANY},
        {"model.embed_tokens", EST_LORA_EMBED, ANY},
        {NULL, 0, ANY},
};

static const struct scheme schemes[] = {
        {"llama", llama_targets, llama_saves},
        {"qwen3_next", qwen3_next_targets, llama_saves},
        {"mixtral", mixtral_targets, llama_saves},
        {"bert", bert_targets, bert_saves},
        {"gpt2", gpt2_targets, gpt2_saves},
        {"t5", t5_targets, t5_saves},
        {"gpt_neox", neox_targets, neox_saves},
        {"falcon", falcon_targets, falcon_saves},
        {"phi3", phi3_targets, llama_saves},
        {"opt", opt_targets, llama_saves},
        {"gptj", gptj_targets, gpt2_saves},
        {"distilbert", distilbert_targets, distilbert_saves},
        {"deberta", deberta_targets, bert_saves},
        {"modernbert", modernbert_targets, modernbert_saves},
        {"mpt", mpt_targets, gpt2_saves},
        {"starcoder2", starcoder2_targets, llama_saves},
        {"bart", bart_targets, bart_saves},
        {"internlm2", internlm2_targets, llama_saves},
        {"deepseek", deepseek_targets, llama_saves},
};

/* Hugging Face model_type -> scheme; other types go by the model's kind. */
static const struct {
        const char *model_type;
        const char *scheme;
} type_schemes[] = {
        {"mixtral", "mixtral"},
        {"gpt2", "gpt2"},
        {"t5", "t5"},
        {"mt5", "t5"},
        {"umt5", "t5"},
        {"gpt_neox", "gpt_neox"},
        {"falcon", "falcon"},
        {"bloom", "falcon"},
        {"phi3", "phi3"},
        {"phimoe", "phi3"},
        {"opt", "opt"},
        {"gptj", "gptj"},
        {"bert", "bert"},
        {"roberta", "bert"},
        {"xlm-roberta", "bert"},
        {"xlm-roberta-xl", "bert"},
        {"camembert", "bert"},
        {"electra", "bert"},
        {"distilbert", "distilbert"},
        {"deberta-v2", "deberta"},
        {"deberta", "deberta"},
        {"modernbert", "modernbert"},
        {"mpt", "mpt"},
        {"starcoder2", "starcoder2"},
        {"bart", "bart"},
        {"mbart", "bart"},
        {"internlm2", "internlm2"},
        {"deepseek_v2", "deepseek"},
        {"deepseek_v3", "deepseek"},
        {"qwen3_next", "qwen3_next"},
        {"qwen3_5_text", "qwen3_next"},
        {"qwen3_5_moe_text", "qwen3_next"},
};

static const struct scheme *scheme_of(const struct model_arch *a)
{
        const char *want = NULL;
        for (size_t i = 0; i < sizeof(type_schemes) / sizeof(type_schemes[0]); i++)
                if (!strcmp(a->model_type, type_schemes[i].model_type))
                        want = type_schemes[i].scheme;
        if (!want)
                want = a->kind == MODEL_ENCODER           ? "bert"
                       : a->kind == MODEL_ENCODER_DECODER ? "t5"
                                                          : "llama";
        for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
                if (!strcmp(schemes[i].name, want))
                        return &schemes[i];
        return &schemes[0];
}

const char *peft_scheme_name(const struct model_arch *arch)
{
        return scheme_of(arch)->name;
}

static bool applies(const struct module *m, const struct model_arch *a)
{
        switch (m->gate) {
        case ANY:
                return true;
        case QDIRECT:
                return a->q_lora_rank == 0;
        case QLATENT:
                return a->q_lora_rank > 0;
        case GATED:
        case UNGATED:
                break;
        }
        return (m->gate == GATED) == a->gated_mlp;
}

/* PEFT's rule: the module's name equals the target or ends in "." target. */
static bool name_matches(const char *path, const char *target)
{
        size_t n = strlen(path), t = strlen(target);
        if (t == 0 || t > n)
                return false;
        if (t == n)
                return !strcmp(path, target);
        return path[n - t - 1] == '.' && !strcmp(path + n - t, target);
}

static int match(const struct module *table, const struct model_arch *a, const char *name,
                 unsigned *bits)
{
        unsigned got = 0;
        for (const struct module *m = table; m->path; m++)
                if (applies(m, a) && name_matches(m->path, name))
                        got |= m->bits;
        if (!got)
                return -1;
        *bits |= got;
        return 0;
}

unsigned peft_all_linear(const struct model_arch *arch)
{
        const struct scheme *s = scheme_of(arch);
        unsigned bits = 0;
        for (const struct module *m = s->targets; m->path; m++)
                if (applies(m, arch) && strchr(m->path, '.') && strncmp(m->path, "lora_", 5))
                        bits |= m->bits;
        /* PEFT's all-linear leaves out the output layer (and embeddings are
         * not linear layers). */
        return bits & ~(EST_LORA_LM_HEAD | EST_LORA_EMBED);
}

int peft_target_bits(const struct model_arch *arch, const char *name, unsigned *bits)
{
        /* gpuplan's own short names, for every family. */
        static const char *const short_names[] = {"q", "k", "v", "o", "gate", "up", "down"};
        if (!strcmp(name, "all") || !strcmp(name, "all-linear") || !strcmp(name, "all_linear")) {
                *bits |= peft_all_linear(arch);
                return 0;
        }
        if (!match(scheme_of(arch)->targets, arch, name, bits))
                return 0;
        for (unsigned i = 0; i < 7; i++)
                if (!strcmp(name, short_names[i])) {
                        *bits |= 1u << i;
                        return 0;
                }
        return -1;
}

int peft_save_bits(const struct model_arch *arch, const char *name, unsigned *bits)
{
        return match(scheme_of(arch)->saves, arch, name, bits);
}

/* Append the last component of each path (and each switch name) once. */
static const char *list_leaves(const struct module *table, const struct model_arch *a,
                               const char *extra, char *buf, size_t len)
{
        size_t off = 0;
        if (!buf || len == 0)
                return buf;
        buf[0] = '\0';
        for (const struct module *m = table; m->path; m++) {
                if (!applies(m, a))
                        continue;
                const char *leaf = strrchr(m->path, '.');
                leaf = leaf ? leaf + 1 : m->path;
                bool seen = false;
                for (const struct module *p = table; p < m && !seen; p++) {
                        const char *l = strrchr(p->path, '.');
                        seen = applies(p, a) && !strcmp(l ? l + 1 : p->path, leaf);
                }
                if (seen)
                        continue;
                int n = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", leaf);
                if (n < 0 || (size_t)n >= len - off)
                        return buf;
                off += (size_t)n;
        }
        if (extra && off < len)
                snprintf(buf + off, len - off, "%s%s", off ? ", " : "", extra);
        return buf;
}

const char *peft_valid_targets(const struct model_arch *arch, char *buf, size_t len)
{
        return list_leaves(scheme_of(arch)->targets, arch,
                           "all-linear, or gpuplan's q, k, v, o, gate, up, down", buf, len);
}

const char *peft_valid_saves(const struct model_arch *arch, char *buf, size_t len)
{
        return list_leaves(scheme_of(arch)->saves, arch, NULL, buf, len);
}
