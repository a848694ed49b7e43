/*
 * reserve.c - what the caching allocator reserves beyond the allocated
 * peak, found by replaying one configuration's tensors through the
 * allocator model of alloc_sim.c.
 *
 * nvidia-smi and torch.cuda.max_memory_reserved() exceed
 * max_memory_allocated() because the allocator carves tensors out of
 * segments and reuses a freed block only for a request it holds: the bf16
 * logits freed before the fp32 loss tensors are allocated leave their
 * segment empty at the peak; 8 MiB requests leave 4 MiB of each 20 MiB
 * segment they are packed in; optimizer states created at the first step
 * split the segments the freed activations left, and the second step's
 * activations need new ones.  None of that is a constant fraction, so the
 * trace is replayed:
 *
 *   load     each parameter tensor of the GPU's share, in module order;
 *   step 1   forward (every operation's output; those autograd keeps stay
 *            until their block's backward, the others are freed after
 *            their consumer), loss, backward (block by block in reverse:
 *            gradients flow, saved tensors are freed, weight gradients
 *            are created), optimizer (states created on the first step,
 *            the step's temporaries), zero_grad;
 *   step 2   the same, now with the states in place.
 *
 * The peak reserved bytes over both steps against the peak allocated bytes
 * is the allocator's reserve; the peak of reserved bytes less the whole
 * free segments an out-of-memory retry would release is what the run
 * needs.  A model's blocks repeat, so past the first few the reserve grows
 * by the same amount per block: three blocks are replayed and extended to
 * the real depth by what each adds during the second step's forward
 * (which keeps an estimate within the engine's time budget; replaying 4, 6
 * or 8 blocks moves no figure of tests/data by more than 0.5%).
 *
 * The tensors of one block follow the eager PyTorch modules of
 * transformers (BertLayer, LlamaDecoderLayer): each nn.Linear output, the
 * attention scores, softmax and dropout of eager attention or the fused
 * attention's output and log-sum-exp, the norms, activation functions and
 * residual sums; autocast's weight copies; QLoRA's dequantized weight per
 * matmul.  Only the compute stream is replayed: FSDP's all-gather and
 * reduce-scatter buffers live in their own streams' pools, which memory.c
 * counts apart, and NCCL's buffers are outside the allocator.  Inference
 * keeps the default reserve: serving engines preallocate their caches.
 */
#include "core/alloc_sim.h"
#include "core/estimate_internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

enum {
        OPS_MAX = 40,      /* operations of one block's forward */
        PARAMS_MAX = 12,   /* parameter tensors of one block */
        SAVED_MAX = 1024,  /* saved tensors alive at once */
        REPLAY_BLOCKS = 3, /* blocks replayed; deeper models are extended */
};

/* One operation of a block's forward: its output, whether autograd keeps
 * it, after how many further operations it is freed when it does not,
 * the gradient that flows back through it, the parameter whose weight
 * gradient its backward creates, and a workspace it needs while it runs
 * (autocast's weight copy is kept, QLoRA's dequantized weight is not). */
struct op {
        double out, grad, work;
        int8_t param;    /* index into the block's parameters; -1 none */
        uint8_t life;    /* transient output: freed after this many more ops */
        bool saved;      /* kept for backward */
        bool keeps_work; /* the workspace is saved for backward (autocast copy) */
        bool block_out;  /* the block's output: kept by a checkpoint too */
        bool sac;        /* kept by torchtitan's op-level selective policy */
};

struct block_plan {
        struct op op[OPS_MAX];
        int n_ops;
        double param[PARAMS_MAX];     /* bytes of each weight tensor on this GPU */
        double trainable[PARAMS_MAX]; /* elements trained per tensor (LoRA: its adapters) */
        int n_params;
};

struct replay {
        struct alloc_sim sim;
        int32_t saved[SAVED_MAX];
        uint8_t saved_op[SAVED_MAX]; /* the operation that produced each */
        int n_saved;
        int32_t pending[OPS_MAX]; /* transients awaiting their free, by op index */
        uint8_t pending_at[OPS_MAX];
        int n_pending;
        bool failed;
};

/* Above this one tensor is absurd (4 PiB): the replay gives up, so that
 * no sum over its at most ALLOC_SIM_BLOCKS blocks can pass 2^64; the
 * estimate itself refuses such a configuration. */
#define TENSOR_BYTES_MAX 4503599627370496.0

static int32_t take(struct replay *r, double bytes)
{
        if (!(bytes >= 1)) /* also NaN */
                return -1;
        if (bytes > TENSOR_BYTES_MAX || r->failed) {
                r->failed = true;
                return -1;
        }
        int32_t h = alloc_sim_malloc(&r->sim, (uint64_t)bytes);
        if (h < 0)
                r->failed = true;
        return h;
}

/* Push h on the saved stack; returns 1 when it was pushed, else 0. */
static int keep(struct replay *r, int32_t h, int op)
{
        if (h < 0)
                return 0;
        if (r->n_saved == SAVED_MAX) {
                r->failed = true;
                alloc_sim_free(&r->sim, h);
                return 0;
        }
        r->saved_op[r->n_saved] = (uint8_t)op;
        r->saved[r->n_saved++] = h;
        return 1;
}

/* ---- the block ------------------------------------------------------------- */

static void add_op(struct block_plan *p, double out, double grad, bool saved, int param,
                   double work, bool keeps_work)
{
        if (p->n_ops == OPS_MAX)
                return;
        p->op[p->n_ops++] = (struct op){.out = out,
                                        .grad = grad,
                                        .work = work,
                                        .param = (int8_t)param,
                                        .life = 1,
                                        .saved = saved,
                                        .keeps_work = keeps_work};
}

static int add_param(struct block_plan *p, double elems, double bytes_per, double trained)
{
        if (p->n_params == PARAMS_MAX)
                return -1;
        p->param[p->n_params] = elems * bytes_per;
        p->trainable[p->n_params] = trained;
        return p->n_params++;
}

/*
 * One block's tensors per GPU at micro-batch b (the forward order of
 * transformers' BertLayer / LlamaDecoderLayer; Korthikanti et al. 2022 §4.1
 * for which outputs autograd keeps).  A linear's output is kept when the
 * next operation needs it for its own gradient (activation functions,
 * softmax, products); the engine's memory.c counts the same tensors.
 */
static void block_plan_build(const struct estimate_input *in, const struct derived *d, double b,
                             struct block_plan *p)
{
        const struct model_arch *a = &in->arch;
        double t = in->tensor_parallel, rows = in->sequence_parallel ? t : 1;
        double B = d->e_a, tok = b * d->s;
        double h = a->hidden, q = (double)a->heads * a->head_dim;
        double kvw = (double)a->kv_heads * a->head_dim;
        double ex = a->experts > 1 ? a->active_experts : 1;
        double f = a->ffn, heads = a->heads / t, s = d->s;
        double drop = a->dropout > 0 ? 1 : 0;
        bool flash = in->flash_attention, compile = in->compile;
        bool qlora = in->mode == EST_QLORA;
        /* weights: quantized block matrices at e_q; autocast keeps fp32 ones */
        double ew = d->e_q, en = d->e_w;
        double stacked = a->experts > 1 ? a->experts : 1;
        bool full = !d->lora;
        double r = in->lora_rank;

        memset(p, 0, sizeof(*p));
        /* Linear weights and what each trains: everything in full training,
         * the rank-r adapters (r x in + out x r) of targeted matrices with
         * LoRA; the replay keeps the four projections and the MLP. */
        unsigned tg = in->lora_targets;
        double la_q = (tg & (EST_LORA_Q | EST_LORA_QKV)) ? r * (h + q) : 0;
        double la_k = (tg & (EST_LORA_K | EST_LORA_QKV)) ? r * (h + kvw) : 0;
        double la_v = (tg & (EST_LORA_V | EST_LORA_QKV)) ? r * (h + kvw) : 0;
        double la_o = (tg & EST_LORA_O) ? r * (q + h) : 0;
        double la_up = (tg & (EST_LORA_UP | EST_LORA_GATE_UP)) ? r * (h + f) * ex : 0;
        double la_gate = (tg & (EST_LORA_GATE | EST_LORA_GATE_UP)) ? r * (h + f) * ex : 0;
        double la_down = (tg & EST_LORA_DOWN) ? r * (h + f) * ex : 0;
        double wq = h * q / t, wkv = h * kvw / t, wo = q * h / t, wf = h * f * stacked / t;
        int pq = add_param(p, wq, ew, full ? wq : la_q);
        int pk = add_param(p, wkv, ew, full ? wkv : la_k);
        int pv = add_param(p, wkv, ew, full ? wkv : la_v);
        int po = add_param(p, wo, ew, full ? wo : la_o);
        int pg = a->gated_mlp ? add_param(p, wf, ew, full ? wf : la_gate) : -1;
        int pu = add_param(p, wf, ew, full ? wf : la_up);
        int pd = add_param(p, wf, ew, full ? wf : la_down);
        add_param(p, h, en, full ? h : 0); /* the two norms */
        add_param(p, h, en, full ? h : 0);

        /* A matmul's workspace: autocast's half copy of the weight (kept
         * for backward; torch.autocast caches casts of leaf weights for
         * the forward), or QLoRA's dequantized weight (dropped after use). */
        double wc = d->amp ? 2.0 / ew : (qlora ? 2.0 / ew : 0);
        bool kw = d->amp;
#define W(pi) (wc > 0 && (pi) >= 0 ? p->param[pi] * wc : 0)

        double x_h = B * tok * h / rows;       /* a residual-stream tensor */
        double mask_h = drop * tok * h / rows; /* its dropout mask */
        double norm_b = (B < 4 && (a->norm == MODEL_NORM_RMSNORM || d->mixed)) ? 4 : B;
        bool qlora_in = qlora && memory_qlora_keeps_inputs(in);

        /* attention input: the norm's output (pre-norm), kept by the
         * projections; a compiled block recomputes it */
        add_op(p, norm_b * tok * h / rows, x_h, !compile || qlora_in, -1, 0, false);
        if (rows > 1 && in->framework != EST_FW_MEGATRON)
                add_op(p, B * tok * h, B * tok * h, true, -1, 0, false); /* gathered input */
        for (int i = 0; i < d->autocast_copies_attn; i++) /* eager autocast's half copies */
                add_op(p, x_h, 0, true, -1, 0, false);
        add_op(p, B * tok * q / t, B * tok * q / t, true, pq, W(pq), kw);
        add_op(p, B * tok * kvw / t, B * tok * kvw / t, true, pk, W(pk), kw);
        add_op(p, B * tok * kvw / t, B * tok * kvw / t, true, pv, W(pv), kw);
        if (flash) {
                /* fused attention keeps its output and fp32 log-sum-exp;
                 * the op policy saves them unless the kernel is off its
                 * list (memory.c, memory_sac_recomputes_attention) */
                bool sac_attn = !memory_sac_recomputes_attention(in);
                add_op(p, B * tok * q / t, B * tok * q / t, true, -1, 0, false);
                p->op[p->n_ops - 1].sac = sac_attn;
                add_op(p, 4.0 * b * heads * s, 0, true, -1, 0, false);
                p->op[p->n_ops - 1].sac = sac_attn;
        } else {
                double sc = b * heads * s * s;
                bool sm32 = memory_eager_fp32_softmax(in, d);
                double e_sc = d->mixed ? 2 : B, e_sm = sm32 ? 4 : B;
                bool keep_core = in->checkpointing != EST_CKPT_SELECTIVE;
                if (kvw < q) { /* repeat_kv: K and V copied to every query head */
                        add_op(p, B * tok * q / t, B * tok * q / t, keep_core, -1, 0, false);
                        add_op(p, B * tok * q / t, B * tok * q / t, keep_core, -1, 0, false);
                }
                add_op(p, e_sc * sc, e_sc * sc, false, -1, 0, false); /* Q K^T */
                if (a->attn_softcap > 0) /* tanh of the capped scores */
                        add_op(p, e_sc * sc, e_sc * sc, keep_core, -1, 0, false);
                add_op(p, e_sc * sc, e_sc * sc, false, -1, 0, false);     /* scaled + mask */
                add_op(p, e_sm * sc, e_sm * sc, keep_core, -1, 0, false); /* softmax */
                if (sm32 && e_sc < 4) /* the fp32 softmax's half copy for the matmul */
                        add_op(p, e_sc * sc, e_sc * sc, keep_core, -1, 0, false);
                if (drop > 0) {
                        add_op(p, sc, 0, keep_core, -1, 0, false); /* mask */
                        p->op[p->n_ops - 1].life = 2;
                        add_op(p, e_sc * sc, e_sc * sc, keep_core, -1, 0, false);
                }
                add_op(p, B * tok * q / t, B * tok * q / t, false, -1, 0, false); /* P V */
                add_op(p, B * tok * q / t, B * tok * q / t, true, -1, 0, false);  /* contiguous */
        }
        if (qlora_in)
                add_op(p, B * tok * q / t, B * tok * q / t, true, -1, 0, false);
        add_op(p, B * tok * h / rows, x_h, false, po, W(po), kw); /* output projection */
        if (memory_extra_norms(a) > 0) /* post-attention norm (Gemma 2/3) */
                add_op(p, norm_b * tok * h / rows, x_h, !compile, -1, 0, false);
        if (drop > 0) {
                add_op(p, mask_h, 0, true, -1, 0, false);
                p->op[p->n_ops - 1].life = 2;
                add_op(p, x_h, x_h, false, -1, 0, false);
        }
        add_op(p, x_h, x_h, true, -1, 0, false); /* residual sum: the next norm's input */
        add_op(p, norm_b * tok * h / rows, x_h, !compile || qlora_in, -1, 0, false);
        if (rows > 1 && in->framework != EST_FW_MEGATRON)
                add_op(p, B * tok * h, B * tok * h, true, -1, 0, false);
        for (int i = 0; i < d->autocast_copies_mlp; i++)
                add_op(p, x_h, 0, true, -1, 0, false);
        double fx = B * tok * f * ex / t;
        /* under LoRA a frozen down projection keeps no input (memory.c) */
        bool down_in = memory_lora_keeps_down_input(in, d);
        /* gelu_new's element-wise chain (memory.c, memory_gelu_new_bytes) */
        double gelu_new = memory_gelu_new_bytes(in, d) * tok * f * ex / t;
        if (a->gated_mlp) {
                add_op(p, fx, fx, true, pg, W(pg), kw); /* gate */
                add_op(p, fx, fx, true, pu, W(pu), kw); /* up */
                if (gelu_new > 0)
                        add_op(p, gelu_new, fx, true, -1, 0, false);
                add_op(p, fx, fx, !compile, -1, 0, false);                          /* act(gate) */
                add_op(p, fx, fx, (!compile && down_in) || qlora_in, -1, 0, false); /* product */
        } else {
                add_op(p, fx, fx, true, pu, W(pu), kw); /* fc1 */
                if (gelu_new > 0)
                        add_op(p, gelu_new, fx, true, -1, 0, false);
                add_op(p, fx, fx, (!compile && down_in) || qlora_in, -1, 0, false); /* act */
        }
        add_op(p, B * tok * h / rows, x_h, false, pd, W(pd), kw); /* down */
        if (memory_extra_norms(a) > 1)                            /* post-feedforward norm */
                add_op(p, norm_b * tok * h / rows, x_h, !compile, -1, 0, false);
        if (drop > 0) {
                add_op(p, mask_h, 0, true, -1, 0, false);
                p->op[p->n_ops - 1].life = 2;
                add_op(p, x_h, x_h, false, -1, 0, false);
        }
        add_op(p, x_h, x_h, true, -1, 0, false);           /* residual sum */
        if (a->norm != MODEL_NORM_RMSNORM && !a->pre_norm) /* post-norm (BERT): its norm */
                add_op(p, norm_b * tok * h / rows, x_h, true, -1, 0, false);
        p->op[p->n_ops - 1].block_out = true; /* the block's output */
        /* torchtitan's op policy (memory.c, memory_sac_op_block_bytes):
         * every other matmul output in forward order, the fused
         * attention's outputs, the block output */
        int mm = 0;
        for (int i = 0; i < p->n_ops; i++) {
                struct op *o = &p->op[i];
                if (o->param >= 0)
                        o->sac = mm++ % 2 == 0;
                o->sac = o->sac || o->block_out;
        }
#undef W
}

/* ---- the replay -------------------------------------------------------------- */

/* The weight gradients alive between steps (-1: none); weights and
 * optimizer states stay allocated for the whole replay and need no handle. */
struct step_state {
        int32_t grads[REPLAY_BLOCKS][PARAMS_MAX];
        int32_t head_g;
        bool states_made;
};

/* Free the transients whose last use is at or before operation upto. */
static void pending_flush(struct replay *r, int upto)
{
        int k = 0;
        for (int i = 0; i < r->n_pending; i++) {
                if (r->pending_at[i] <= upto) {
                        alloc_sim_free(&r->sim, r->pending[i]);
                } else {
                        r->pending[k] = r->pending[i];
                        r->pending_at[k++] = r->pending_at[i];
                }
        }
        r->n_pending = k;
}

/* What a block's forward keeps: everything autograd saves; under a full
 * checkpoint only the block output; under the op policy what it names; a
 * recomputation under the op policy adds the rest. */
enum fwd_mode { FWD_ALL, FWD_CHECKPOINT, FWD_OP_POLICY, FWD_OP_RECOMPUTE };

/* One block's forward; kept outputs go on the saved stack.  Returns the
 * number pushed. */
static int block_forward(struct replay *r, const struct block_plan *p, enum fwd_mode mode)
{
        int pushed = 0;
        /* autocast's weight copies are saved wherever the outputs are */
        bool keeps_work = mode == FWD_ALL || mode == FWD_OP_RECOMPUTE;
        for (int i = 0; i < p->n_ops && !r->failed; i++) {
                const struct op *o = &p->op[i];
                if (mode == FWD_OP_RECOMPUTE && o->sac)
                        continue; /* still held from the forward */
                int32_t w = take(r, o->work);
                int32_t h = take(r, o->out);
                pending_flush(r, i);
                bool kept = mode == FWD_CHECKPOINT  ? o->block_out
                            : mode == FWD_OP_POLICY ? o->sac
                                                    : o->saved;
                if (kept) {
                        pushed += keep(r, h, i);
                } else if (h >= 0 && r->n_pending < OPS_MAX) {
                        r->pending[r->n_pending] = h;
                        r->pending_at[r->n_pending++] = (uint8_t)(i + o->life);
                } else {
                        alloc_sim_free(&r->sim, h);
                }
                if (o->keeps_work && keeps_work) {
                        pushed += keep(r, w, i);
                } else {
                        alloc_sim_free(&r->sim, w);
                }
        }
        pending_flush(r, INT_MAX);
        return pushed;
}

/* One block's backward, as the autograd engine runs it: operation by
 * operation in reverse, each allocates the gradient of its input (and, for
 * a trained weight, the weight's gradient: kept in grads[] until
 * zero_grad, or added into the kept one and dropped; QLoRA dequantizes the
 * weight again), then releases the gradient it received and the tensors
 * saved for it (Node::release_variables after apply). */
static void block_backward(struct replay *r, const struct block_plan *p, int n_saved,
                           int32_t *grads, double e_g, bool qlora)
{
        int32_t flowing = -1;
        int base = r->n_saved - n_saved > 0 ? r->n_saved - n_saved : 0;
        for (int i = p->n_ops - 1; i >= 0 && !r->failed; i--) {
                const struct op *o = &p->op[i];
                int32_t g = take(r, o->grad);
                if (o->param >= 0) {
                        int32_t deq = qlora ? take(r, o->work) : -1;
                        double tr = p->trainable[o->param];
                        if (tr > 0 && grads[o->param] < 0) {
                                grads[o->param] = take(r, tr * e_g);
                        } else if (tr > 0) {
                                int32_t add = take(r, tr * e_g);
                                alloc_sim_free(&r->sim, add);
                        }
                        alloc_sim_free(&r->sim, deq);
                }
                alloc_sim_free(&r->sim, flowing);
                flowing = g;
                while (r->n_saved > base && r->saved_op[r->n_saved - 1] >= i)
                        alloc_sim_free(&r->sim, r->saved[--r->n_saved]);
        }
        alloc_sim_free(&r->sim, flowing);
        while (r->n_saved > base)
                alloc_sim_free(&r->sim, r->saved[--r->n_saved]);
}

/* How block k (0 = first) runs its forward: full checkpointing of every
 * k-th block counts them as torchtitan does (memory.c). */
static enum fwd_mode block_mode(const struct estimate_input *in, int k)
{
        if (in->checkpointing == EST_CKPT_SELECTIVE_OP)
                return FWD_OP_POLICY;
        if (in->checkpointing == EST_CKPT_FULL &&
            (in->checkpoint_every <= 1 || (uint32_t)(k + 1) % in->checkpoint_every == 0))
                return FWD_CHECKPOINT;
        return FWD_ALL;
}

struct replay_result {
        double allocated, reserved; /* peaks over the two steps */
        double needed;              /* peak of reserved less releasable segments */
        double per_block;           /* reserved - allocated one more block adds */
        double per_block_held;      /* the same without releasable segments */
};

/* replay_loss without the soft cap. */
static void replay_loss_body(struct replay *r, const struct estimate_input *in, double n, double e,
                             int32_t *logit)
{
        if (in->chunked_loss) {
                /* per chunk: compute-dtype logits kept, the fp32 upcast
                 * and log-probabilities only while that chunk's loss runs;
                 * torchtune compiled makes no fp32 chunk, torchtune eager
                 * keeps each chunk's log-probabilities (memory.c,
                 * logits_bytes) */
                enum memory_chunked_ce ce = memory_chunked_ce(in);
                double c = n / memory_loss_chunks;
                int32_t kept[16], lps[16];
                int chunks = (int)memory_loss_chunks < 16 ? (int)memory_loss_chunks : 16;
                for (int i = 0; i < chunks; i++) {
                        kept[i] = take(r, e * c);
                        lps[i] = -1;
                        if (ce == MEMORY_CE_COMPILED)
                                continue;
                        int32_t up = take(r, 4 * c), lp = take(r, 4 * c);
                        alloc_sim_free(&r->sim, up);
                        if (ce == MEMORY_CE_EAGER_KEPT)
                                lps[i] = lp;
                        else
                                alloc_sim_free(&r->sim, lp);
                }
                if (ce == MEMORY_CE_EAGER_KEPT && !in->output_kept)
                        for (int i = 0; i < chunks; i++) { /* the recipe's del logits */
                                alloc_sim_free(&r->sim, kept[i]);
                                kept[i] = -1;
                        }
                for (int i = chunks - 1; i >= 0; i--) {
                        if (ce == MEMORY_CE_EAGER_KEPT) {
                                int32_t g_lp = take(r, 4 * c), g_up = take(r, 4 * c);
                                alloc_sim_free(&r->sim, g_lp);
                                alloc_sim_free(&r->sim, lps[i]);
                                int32_t g_c = take(r, e * c);
                                alloc_sim_free(&r->sim, g_up);
                                alloc_sim_free(&r->sim, g_c);
                                alloc_sim_free(&r->sim, kept[i]);
                                continue;
                        }
                        int32_t g = take(r, e * c);
                        alloc_sim_free(&r->sim, kept[i]);
                        alloc_sim_free(&r->sim, g);
                }
                return;
        }
        if (in->logits == EST_LOGITS_FUSED) {
                logit[0] = take(r, e * n);
                int32_t g = take(r, e * n);
                alloc_sim_free(&r->sim, logit[0]);
                alloc_sim_free(&r->sim, g);
                return;
        }
        if (in->logits == EST_LOGITS_LOSS_PARALLEL) {
                int32_t out = take(r, e * n);     /* the model output */
                int32_t x = take(r, 4 * n);       /* fp32 copy */
                int32_t shifted = take(r, 4 * n); /* x - max */
                int32_t ex = take(r, 4 * n);      /* exp(shifted), summed */
                alloc_sim_free(&r->sim, ex);
                int32_t lp = take(r, 4 * n); /* shifted - log-sum-exp, saved */
                alloc_sim_free(&r->sim, shifted);
                alloc_sim_free(&r->sim, x);
                alloc_sim_free(&r->sim, out);
                /* fused nll_loss + log_softmax backward */
                int32_t zeros = take(r, 4 * n);
                ex = take(r, 4 * n);
                int32_t sum = take(r, 4 * n);
                alloc_sim_free(&r->sim, ex);
                int32_t g = take(r, 4 * n);
                alloc_sim_free(&r->sim, zeros);
                alloc_sim_free(&r->sim, sum);
                alloc_sim_free(&r->sim, lp);
                int32_t g_c = e < 4 ? take(r, e * n) : -1;
                alloc_sim_free(&r->sim, g);
                alloc_sim_free(&r->sim, g_c);
                return;
        }
        if (in->logits == EST_LOGITS_UPCAST_IN_LOSS) {
                logit[0] = take(r, e * n); /* the model output */
                logit[1] = take(r, 4 * n); /* fp32 copy, a temporary of the loss call */
                logit[2] = take(r, 4 * n); /* log-probabilities */
                alloc_sim_free(&r->sim, logit[1]);
                logit[1] = -1;
                if (!in->output_kept) {
                        alloc_sim_free(&r->sim, logit[0]);
                        logit[0] = -1;
                }
        } else {
                if (e < 4) { /* the head's output before the model's .float() */
                        int32_t head = take(r, e * n);
                        logit[1] = take(r, 4 * n);
                        alloc_sim_free(&r->sim, head);
                } else {
                        logit[1] = take(r, 4 * n);
                }
                logit[2] = take(r, 4 * n);
                if (!in->output_kept) { /* the loop let the output go */
                        alloc_sim_free(&r->sim, logit[1]);
                        logit[1] = -1;
                }
        }
        int32_t g_lp = take(r, 4 * n); /* gradient of the log-probabilities */
        int32_t g_up = take(r, 4 * n); /* of the fp32 logits */
        alloc_sim_free(&r->sim, g_lp);
        alloc_sim_free(&r->sim, logit[2]);
        alloc_sim_free(&r->sim, logit[1]);
        int32_t g_c = e < 4 ? take(r, e * n) : -1; /* back to the head's dtype */
        alloc_sim_free(&r->sim, g_up);
        alloc_sim_free(&r->sim, g_c);
        alloc_sim_free(&r->sim, logit[0]); /* a kept model output goes with the step */
}

/* The head and loss over n = tokens x vocabulary logits (memory.c,
 * logits_bytes, names the framework behind each variant): what the forward
 * keeps, then the backward's gradients, each freed once used. */
static void replay_loss(struct replay *r, const struct estimate_input *in, const struct derived *d,
                        double n)
{
        double e = d->e_a;
        int32_t logit[3] = {-1, -1, -1};
        /* Gemma 2's final soft cap keeps tanh's result until the loss's
         * gradient has passed (memory.c, logits_bytes) */
        int32_t cap = in->arch.final_softcap > 0
                              ? take(r, e * n / (in->chunked_loss ? memory_loss_chunks : 1))
                              : -1;
        replay_loss_body(r, in, n, e, logit);
        alloc_sim_free(&r->sim, cap);
}

static void replay_run(const struct estimate_input *in, const struct derived *d, double b,
                       const struct block_plan *plan, int blocks, struct replay *r,
                       struct replay_result *out)
{
        struct step_state st;
        const struct model_arch *a = &in->arch;
        double t = in->tensor_parallel;
        bool expandable = in->expandable_segments;
        bool qlora = in->mode == EST_QLORA;

        alloc_sim_init(&r->sim, expandable);
        r->n_saved = r->n_pending = 0;
        r->failed = false;
        memset(&st, 0xff, sizeof(st)); /* every handle -1 */
        st.states_made = false;

        /* Sharded weights (ZeRO-3 / FSDP): the GPU holds 1/S of each
         * tensor; the gathered copies live in the all-gather stream. */
        double S = d->stage >= 3 ? d->shard : 1;
        double S_g = d->stage >= 2 ? d->shard : 1, S_o = d->stage >= 1 ? d->shard : 1;
        double head_elems = (double)a->vocab * a->hidden / t;
        bool trains_head = !d->lora && d->training;

        /* load: embeddings (and head), then every block in module order
         * (FSDP1's construction of its units: fsdp1_init_cached) */
        take(r, head_elems * d->e_w / S);
        for (int k = 0; k < blocks; k++)
                for (int i = 0; i < plan->n_params; i++)
                        take(r, plan->param[i] / S);
        /* training scripts measure from here (reset_peak_memory_stats
         * after setup); what loading left cached stays reserved */
        alloc_sim_reset_peaks(&r->sim);

        double e_g = d->e_g, e_state = d->e_opt > 0 ? d->e_opt : 0;
        int n_state = e_state >= 4 ? 2 : 1;
        double logits = d->lm_logits ? (double)d->s_dec * a->vocab / t * b : 0; /* decoder tokens */
        bool persist = in->gradients_persist || in->gradient_accumulation > 1;

        double gap_after[REPLAY_BLOCKS] = {0}, held_after[REPLAY_BLOCKS] = {0};
        for (int step = 0; step < 2 && !r->failed; step++) {
                int pushed[REPLAY_BLOCKS];
                int32_t emb = take(r, d->e_a * b * d->s * a->hidden);
                keep(r, emb, 0);
                for (int k = 0; k < blocks; k++) {
                        pushed[k] = block_forward(r, plan, block_mode(in, k));
                        if (step == 1) {
                                double res = (double)r->sim.reserved;
                                gap_after[k] = res - (double)r->sim.allocated;
                                held_after[k] = gap_after[k] - (double)r->sim.releasable;
                        }
                }
                /* the head and the loss, tensor by tensor as memory.c's
                 * logits_bytes describes them, then their gradients and the
                 * head's weight gradient */
                if (logits > 0)
                        replay_loss(r, in, d, logits);
                if (trains_head && st.head_g < 0)
                        st.head_g = take(r, head_elems * e_g / S_g);
                for (int k = blocks - 1; k >= 0 && !r->failed; k--) {
                        enum fwd_mode m = block_mode(in, k);
                        int n = pushed[k];
                        /* recompute the block, keeping what it saves */
                        if (m == FWD_CHECKPOINT)
                                n += block_forward(r, plan, FWD_ALL);
                        else if (m == FWD_OP_POLICY)
                                n += block_forward(r, plan, FWD_OP_RECOMPUTE);
                        block_backward(r, plan, n, st.grads[k], e_g / S_g, qlora);
                }
                alloc_sim_free(&r->sim, emb);
                r->n_saved = 0;

                /* optimizer: states on the first step, then the step's
                 * temporaries (torch foreach: one per tensor) */
                if (!st.states_made && e_state > 0 && !in->optimizer_in_backward &&
                    in->offload == EST_OFFLOAD_NONE) {
                        for (int k = 0; k < blocks; k++)
                                for (int i = 0; i < plan->n_params; i++)
                                        for (int j = 0; j < n_state; j++)
                                                if (plan->trainable[i] > 0)
                                                        take(r, plan->trainable[i] * e_state /
                                                                        n_state / S_o);
                        if (trains_head)
                                for (int j = 0; j < n_state; j++)
                                        take(r, head_elems * e_state / n_state / S_o);
                        st.states_made = true;
                }
                if (d->e_opt_temp > 0) {
                        int32_t tmp[REPLAY_BLOCKS * PARAMS_MAX + 1];
                        int n = 0;
                        for (int k = 0; k < blocks; k++)
                                for (int i = 0; i < plan->n_params; i++)
                                        if (plan->trainable[i] > 0)
                                                tmp[n++] = take(r, plan->trainable[i] *
                                                                           d->e_opt_temp / S_o);
                        if (trains_head)
                                tmp[n++] = take(r, head_elems * d->e_opt_temp / S_o);
                        for (int i = 0; i < n; i++)
                                alloc_sim_free(&r->sim, tmp[i]);
                }
                if (!persist) { /* zero_grad(set_to_none=True) */
                        for (int k = 0; k < blocks; k++)
                                for (int i = 0; i < plan->n_params; i++) {
                                        alloc_sim_free(&r->sim, st.grads[k][i]);
                                        st.grads[k][i] = -1;
                                }
                        alloc_sim_free(&r->sim, st.head_g);
                        st.head_g = -1;
                }
        }
        out->allocated = (double)r->sim.peak_allocated;
        out->reserved = (double)r->sim.peak_reserved;
        out->needed = (double)r->sim.peak_needed;
        /* what one more block adds in the steady state: the second
         * step's forward, past its first block */
        out->per_block = blocks > 1 ? (gap_after[blocks - 1] - gap_after[0]) / (blocks - 1) : 0;
        out->per_block_held =
                blocks > 1 ? (held_after[blocks - 1] - held_after[0]) / (blocks - 1) : 0;
}

/*
 * Bytes the caching allocator reserves beyond the allocated peak for this
 * configuration at micro-batch b (*gap), and the part of it the allocator
 * cannot hand back when the device runs short (*held: split segments with
 * free holes; whole free segments are released and the allocation
 * retried): a replay of three blocks (or all, when fewer), extended by what
 * each further block adds in the steady state.  Returns 0, or -1 when no
 * replay applies (inference) or it cannot run.
 */
/*
 * FSDP1 builds its units bottom-up, the blocks and then the root
 * (embeddings, head), each as _init_param_handle_from_module does it
 * (torch/distributed/fsdp/_init_utils.py, flat_param.py): the unit's
 * parameters are moved to (or materialised on) the GPU whole,
 * FlatParamHandle concatenates them into one flat parameter and points
 * them at it, shard() clones this rank's chunk and frees the flat storage;
 * with CPUOffload(offload_params) the shard then goes to the host.  What
 * this frees stays cached in the compute stream's pool.  Two block units
 * and the root are replayed (the units repeat, so the cache does not grow
 * with depth); returns the bytes reserved beyond the shards at the end, or
 * -1 when the replay cannot run, and sets *shards to what the GPU keeps of
 * a model depth blocks deep.
 */
static double fsdp1_init_cached(const struct estimate_input *in, const struct derived *d,
                                const struct block_plan *plan, double depth, struct replay *r,
                                double *shards)
{
        const struct model_arch *a = &in->arch;
        double S = d->shard, t = in->tensor_parallel;
        double head = (double)a->vocab * a->hidden / t * d->e_w;
        double root[2] = {head, a->tied_embeddings ? 0 : head};
        bool to_host = in->offload == EST_OFFLOAD_OPTIMIZER_AND_PARAMS;
        double block = 0;
        for (int i = 0; i < plan->n_params; i++)
                block += plan->param[i];
        *shards = to_host ? 0 : (depth * block + root[0] + root[1]) / S;

        alloc_sim_init(&r->sim, in->expandable_segments);
        r->failed = false;
        for (int k = 0; k < 3 && !r->failed; k++) {
                const double *param = k < 2 ? plan->param : root;
                int n = k < 2 ? plan->n_params : 2;
                int32_t orig[PARAMS_MAX];
                double unit = 0;
                for (int i = 0; i < n; i++) {
                        orig[i] = take(r, param[i]);
                        unit += param[i];
                }
                int32_t flat = take(r, unit);
                for (int i = 0; i < n; i++)
                        alloc_sim_free(&r->sim, orig[i]);
                int32_t shard = take(r, unit / S);
                alloc_sim_free(&r->sim, flat);
                if (to_host)
                        alloc_sim_free(&r->sim, shard);
        }
        if (r->failed || r->sim.overflow)
                return -1;
        return (double)(r->sim.reserved - r->sim.allocated);
}

int reserve_replay(const struct estimate_input *in, const struct derived *d, double b,
                   double compute_peak, double *gap, double *held)
{
        struct replay r; /* about 50 KiB of stack */
        struct replay_result res;
        struct block_plan plan;
        double L = ((double)in->arch.layers + in->arch.decoder_layers) / in->pipeline_parallel;

        if (!d->training || b < 1)
                return -1;
        int n = L < REPLAY_BLOCKS ? (int)fmax(L, 1) : REPLAY_BLOCKS;
        block_plan_build(in, d, b, &plan);
        replay_run(in, d, b, &plan, n, &r, &res);
        if (r.failed || !(res.allocated > 0))
                return -1;
        *gap = res.reserved - res.allocated;
        *held = fmin(res.needed - res.allocated, *gap);
        if (L > n) {
                *gap += (L - n) * fmax(res.per_block, 0);
                *held += (L - n) * fmax(res.per_block_held, 0);
        }
        *gap = fmax(*gap, 0);
        *held = fmin(fmax(*held, 0), *gap);
        if (in->strategy == EST_FSDP && in->fsdp_version == 1 && d->stage >= 3 && d->shard > 1) {
                /* Training carves its first tensors out of what FSDP1's
                 * construction left cached (the blocks are large, so they
                 * split): the run reserves the larger of what training
                 * alone would and of the shards plus that cache.  The cache
                 * is whole free segments, released before an out-of-memory
                 * error, so it adds nothing to held. */
                double shards;
                double cached = fsdp1_init_cached(in, d, &plan, L, &r, &shards);
                if (cached > 0)
                        *gap = fmax(*gap, shards + cached - compute_peak);
        }
        return 0;
}
