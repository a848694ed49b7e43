-- The Hugging Face BERT-large measurements (nvidia-smi on a V100, 2022-23)
-- ran under an older runtime than the engine's defaults describe; state it
-- in their requests so that the validation compares like with like:
--   * the CUDA context the same documentation page measured: 1343 MiB,
--     every kernel loaded eagerly (no CUDA lazy module loading);
--   * gradients kept between steps: the Trainer calls model.zero_grad(),
--     whose default was set_to_none=False before PyTorch 2.0;
--   * the per-parameter transformers AdamW (optim "adamw_hf", the Trainer
--     default before transformers v4.32, huggingface/transformers#25109),
--     which has no step-wide temporaries.
UPDATE measurements
SET request = request || '{"runtime": {"cuda_context_bytes": 1408237568,
                                       "gradients_persist": true,
                                       "optimizer_per_parameter": true}}'::jsonb,
    notes = coalesce(notes, '') || '; runtime of the measurement (transformers v4.2x, PyTorch 1.x): '
            'the CUDA context the same page measured (1343 MiB, eager kernel loading), gradients '
            'kept between steps (zero_grad set_to_none=False before PyTorch 2.0) and the '
            'per-parameter transformers AdamW (adamw_hf, the Trainer default before v4.32)'
WHERE id LIKE 'hf-bert-large-%';
