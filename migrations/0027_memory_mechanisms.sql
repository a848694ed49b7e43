-- The torchtune README's memory rows were measured with torch.compile on
-- (the table's note: "torch compile enabled"), which compiles
-- CEWithChunkedOutputLoss.compute_cross_entropy: the requests say so, as
-- tests/data/measurements.json does.
UPDATE measurements
   SET request = jsonb_set(request, '{memory_savers,compile}', 'true')
 WHERE id IN ('torchtune-llama3.1-8b-full-4090',
              'torchtune-llama3.1-8b-lora-4090',
              'torchtune-llama3.1-8b-qlora-4090',
              'torchtune-llama3.1-70b-full-8xa100',
              'torchtune-llama3.1-70b-lora-8xa100',
              'torchtune-llama3.1-405b-qlora-8xa100');
