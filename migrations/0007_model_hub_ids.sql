-- 0007: the names users copy from the Hugging Face Hub.  Each catalog model
-- keeps its hub repository ids (the current organisation's and, where the
-- Hub moved a model, the older bare name, which still resolves there) so
-- that {"model": {"id": "meta-llama/Llama-2-7b-hf"}} finds the catalog's
-- llama-2-7b.  The server matches them case-insensitively.  Chat / instruct
-- variants share the base model's architecture and so its entry.
ALTER TABLE models ADD COLUMN hub_ids text[] NOT NULL DEFAULT '{}'
        CHECK (array_position(hub_ids, NULL) IS NULL);

UPDATE models AS m SET hub_ids = v.ids
FROM (VALUES
        ('xlm-roberta-base', ARRAY['FacebookAI/xlm-roberta-base', 'xlm-roberta-base']),
        ('xlm-roberta-large', ARRAY['FacebookAI/xlm-roberta-large', 'xlm-roberta-large']),
        ('xlm-roberta-xl', ARRAY['facebook/xlm-roberta-xl']),
        ('xlm-roberta-xxl', ARRAY['facebook/xlm-roberta-xxl']),
        ('bert-base-uncased', ARRAY['google-bert/bert-base-uncased', 'bert-base-uncased']),
        ('bert-large-uncased', ARRAY['google-bert/bert-large-uncased', 'bert-large-uncased']),
        ('roberta-base', ARRAY['FacebookAI/roberta-base', 'roberta-base']),
        ('roberta-large', ARRAY['FacebookAI/roberta-large', 'roberta-large']),
        ('gpt2', ARRAY['openai-community/gpt2', 'gpt2']),
        ('gpt2-medium', ARRAY['openai-community/gpt2-medium', 'gpt2-medium']),
        ('gpt2-large', ARRAY['openai-community/gpt2-large', 'gpt2-large']),
        ('gpt2-xl', ARRAY['openai-community/gpt2-xl', 'gpt2-xl']),
        ('llama-2-7b', ARRAY['meta-llama/Llama-2-7b-hf', 'meta-llama/Llama-2-7b-chat-hf',
                             'meta-llama/Llama-2-7b']),
        ('llama-2-13b', ARRAY['meta-llama/Llama-2-13b-hf', 'meta-llama/Llama-2-13b-chat-hf',
                              'meta-llama/Llama-2-13b']),
        ('llama-2-70b', ARRAY['meta-llama/Llama-2-70b-hf', 'meta-llama/Llama-2-70b-chat-hf',
                              'meta-llama/Llama-2-70b']),
        ('llama-3-8b', ARRAY['meta-llama/Meta-Llama-3-8B', 'meta-llama/Meta-Llama-3-8B-Instruct']),
        ('llama-3-70b', ARRAY['meta-llama/Meta-Llama-3-70B',
                              'meta-llama/Meta-Llama-3-70B-Instruct']),
        ('mistral-7b', ARRAY['mistralai/Mistral-7B-v0.1', 'mistralai/Mistral-7B-Instruct-v0.1']),
        ('mixtral-8x7b', ARRAY['mistralai/Mixtral-8x7B-v0.1',
                               'mistralai/Mixtral-8x7B-Instruct-v0.1']),
        ('qwen2.5-7b', ARRAY['Qwen/Qwen2.5-7B', 'Qwen/Qwen2.5-7B-Instruct']),
        ('t5-base', ARRAY['google-t5/t5-base', 't5-base']),
        ('t5-large', ARRAY['google-t5/t5-large', 't5-large']),
        ('t5-3b', ARRAY['google-t5/t5-3b', 't5-3b']),
        ('t5-11b', ARRAY['google-t5/t5-11b', 't5-11b'])
) AS v(id, ids)
WHERE m.id = v.id;
