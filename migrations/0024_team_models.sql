-- 0024: a team's own models beside the curated catalog.  An admin stores
-- one with PUT /api/v1/models/{id} from a pasted config.json or a Hub id;
-- it is listed, searched and estimated like a catalog model.  origin keeps
-- the two apart so that the API never overwrites a curated entry.
ALTER TABLE models ADD COLUMN origin text NOT NULL DEFAULT 'catalog'
        CHECK (origin IN ('catalog', 'team'));
