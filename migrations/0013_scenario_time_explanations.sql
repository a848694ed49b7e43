-- 0013: why each seed row's epoch time differs from the engine's, in its own
-- column beside the memory explanation.
--
-- The pre-training Base and Large rows kept their time reasoning in
-- explanation, written for the flat-MFU time model (FLOPs / (peak x MFU)).
-- The time model now prices each pass on a roofline (matmuls, attention,
-- memory traffic, host dispatch; core/speed.c), so the time text is
-- rewritten for it and moved here; explanation keeps the memory verdict.

ALTER TABLE scenarios ADD COLUMN time_explanation text;

UPDATE scenarios SET explanation = 'Memory lands in the reported size class.'
        WHERE id IN ('pt-base-b16', 'pt-base-b26', 'pt-base-b52',
                     'pt-large-b8', 'pt-large-b16', 'pt-large-b36');

-- Fine-tuning: 10,000 tweets x 128 tokens, one epoch.
UPDATE scenarios SET time_explanation =
        'The article''s fine-tuning hours (1, 3, 50 and 25 h for 10,000 tweets) cannot be training '
        'time.  The same article pre-trains the same models on 100 times the samples (1M tweets) on '
        'the same GPUs in 2.3-33.2 h: XL fine-tuning on two A100s is reported at 50 h, XL '
        'pre-training over 100x the data on two A100s at 33.2 h.  One epoch here is 1.28M tokens; '
        'the engine''s estimate beside it is the forward, backward and optimizer work of those '
        'tokens on the assumed setup (a roofline per kind of work, GET /api/v1/validation time '
        'cases for its accuracy), seconds to minutes.  The reported hours must hold work the '
        'article does not list - evaluation, data preparation, job start-up, or a reservation '
        'rounded up - so this row is marked as not landing on time.'
        WHERE id IN ('ft-base', 'ft-large', 'ft-xl', 'ft-xxl');

-- Pre-training Base and Large: three batch sizes each, same tokens.
UPDATE scenarios SET time_explanation =
        'The article''s time falls with the batch size (Base 5.1, 3.3, 2.3 h at 16, 26, 52 '
        'samples; Large 15.3, 8.4, 4.7 h at 8, 16, 36) although every run trains the same 1M '
        'tweets x 128 tokens.  Seconds per micro-batch (epoch hours x 3600 / micro-batches) are '
        'for Base 0.29 s at 16 samples, 0.31 s at 26 and 0.43 s at 52: about 0.23 s fixed plus '
        '3.8 ms per sample.  The engine charges what the GPU and the host must do: in fp32 on an '
        'A100 a Base sample costs about 14 ms of matmuls (two thirds of it in the 250k-word MLM head), '
        'and eager dispatch of a 12-24 block model takes 10-20 ms per micro-batch, below the GPU '
        'time, so its hours do not depend on the batch size.  The article''s 3.8 ms '
        'per sample is faster than fp32 arithmetic allows on an A100 (TF32 tensor cores or mixed '
        'precision would allow it), and its 0.23 s per micro-batch is host-side work the article '
        'does not describe (on-the-fly tokenization and masking in the data collator, logging).  '
        'Fitting a constant to these rows would be curve-fitting, so none is.'
        WHERE id IN ('pt-base-b16', 'pt-base-b26', 'pt-base-b52',
                     'pt-large-b8', 'pt-large-b16', 'pt-large-b36');

UPDATE scenarios SET time_explanation =
        'The estimate is fp32 FSDP with CPU offload on A100s: matmuls on the 19.5 TFLOP/s fp32 '
        'units, the offloaded parameters and gradients crossing PCIe each step, data-parallel '
        'traffic hidden behind compute.  The article''s XL hours (33.2 h on 2 GPUs, 18.3 h on 4) '
        'are 1.4-1.6x the estimate and scale 1.8x from 2 to 4 GPUs where the estimate scales 2x; '
        'the difference is of the size that the CPU optimizer step over offloaded fp32 states and '
        'unhidden parameter gathers from host memory add, which the article does not quantify.'
        WHERE id IN ('pt-xl-2gpu', 'pt-xl-4gpu');

UPDATE scenarios SET time_explanation =
        'The estimate is fp32 FSDP with CPU offload on eight H100s: matmuls on the 67 TFLOP/s '
        'fp32 units.  The article''s 13.6 h is about 2.6x the estimate: its XXL run is slower per '
        'GPU than its own XL runs on A100s would suggest (4.3x the parameters, 8 H100s instead of '
        '4 A100s, half the micro-batch), which points to costs outside the GPU - parameter traffic '
        'to and from host memory and the CPU optimizer step over 10.7B fp32 parameters - that the '
        'article does not break down.'
        WHERE id = 'pt-xxl-8gpu';
