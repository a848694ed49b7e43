-- 0031: cite public sources in the data instead of the names of documents
-- that only the project's authors had.  "seeds/002" was the article
-- "Hardware Requirements for Training of Language Models" (its XLM-RoBERTa
-- fine-tuning and pre-training tables); "seeds/000" was the guide
-- "Hardware for ML Practitioners".  Text only: no figure changes.

UPDATE models
   SET parameters_source = replace(parameters_source, 'seeds/002 table',
           'XLM-RoBERTa tables of the article "Hardware Requirements for Training of Language Models"')
 WHERE parameters_source LIKE '%seeds/002%';

UPDATE scenarios
   SET source = replace(source, 'seeds/002 (Hardware Requirements for Training of Language Models)',
           'the article "Hardware Requirements for Training of Language Models"')
 WHERE source LIKE '%seeds/002%';

UPDATE accelerators
   SET notes = replace(replace(notes, '(seeds/000)', '(the guide "Hardware for ML Practitioners")'),
                       'seeds/000', 'the guide "Hardware for ML Practitioners"')
 WHERE notes LIKE '%seeds/000%';
