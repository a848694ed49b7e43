-- 0001: the catalog: accelerators, providers, offerings, prices (append-only
-- history), purchase prices, ownership settings, models, and an audit log.
--
-- Units are base units throughout: bytes, bytes per second, FLOP per second,
-- watts, USD.  A NULL figure means "unknown" and is served as JSON null,
-- never as 0.  Every row that states a fact carries its source and the date
-- the source was read.

CREATE TABLE accelerators (
        id                      text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
        name                    text NOT NULL,
        vendor                  text NOT NULL,
        kind                    text NOT NULL CHECK (kind IN
                                ('gpu', 'tpu', 'npu', 'lpu', 'ipu', 'hpu', 'wse', 'asic', 'soc')),
        form_factor             text NOT NULL,  -- sxm, pcie, oam, card, board, soc, wafer, ...
        chips_per_board         integer NOT NULL DEFAULT 1 CHECK (chips_per_board >= 1),
        -- Memory of ONE chip as the engine schedules it (a K80 board is two
        -- 12 GB GPUs: memory_bytes = 12 GB, chips_per_board = 2).
        memory_bytes            bigint CHECK (memory_bytes > 0),
        usable_memory_bytes     bigint CHECK (usable_memory_bytes > 0),
        memory_type             text,
        memory_bandwidth_bytes_per_s double precision CHECK (memory_bandwidth_bytes_per_s > 0),
        -- Dense peak throughput (no 2:4 sparsity) per precision.
        fp32_flops              double precision CHECK (fp32_flops > 0),
        tf32_flops              double precision CHECK (tf32_flops > 0),
        fp16_flops              double precision CHECK (fp16_flops > 0),
        bf16_flops              double precision CHECK (bf16_flops > 0),
        fp8_flops               double precision CHECK (fp8_flops > 0),
        int8_flops              double precision CHECK (int8_flops > 0),
        tdp_watts               double precision CHECK (tdp_watts > 0),
        interconnect_kind       text NOT NULL DEFAULT 'pcie' CHECK (interconnect_kind IN
                                ('pcie', 'nvlink', 'infinity_fabric', 'ici', 'ethernet', 'other', 'none')),
        interconnect            text,           -- "NVLink 4 (18 links)", "PCIe 4.0 x16"
        -- Per chip, both directions added, as vendors quote it (NVLink 4: 900 GB/s).
        interconnect_bytes_per_s double precision CHECK (interconnect_bytes_per_s > 0),
        host_interface          text,           -- "PCIe 5.0 x16"
        host_bytes_per_s        double precision CHECK (host_bytes_per_s > 0),  -- one direction
        launch_year             integer CHECK (launch_year BETWEEN 2000 AND 2100),
        launch_price_usd        numeric(12, 2) CHECK (launch_price_usd > 0),
        can_train               boolean NOT NULL DEFAULT true,
        can_infer               boolean NOT NULL DEFAULT true,
        cuda                    boolean NOT NULL DEFAULT false,
        frameworks              text,           -- "PyTorch (CUDA), JAX, TensorFlow"
        notes                   text,
        source                  text NOT NULL CHECK (source <> ''),
        source_date             date NOT NULL,
        updated_at              timestamptz NOT NULL DEFAULT now(),
        updated_by              text NOT NULL DEFAULT 'migration'
);

CREATE TABLE providers (
        id                      text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
        name                    text NOT NULL,
        kind                    text NOT NULL CHECK (kind IN
                                ('hyperscaler', 'gpu_cloud', 'marketplace', 'notebook')),
        url                     text,
        notes                   text,
        source                  text NOT NULL CHECK (source <> ''),
        source_date             date NOT NULL,
        updated_at              timestamptz NOT NULL DEFAULT now(),
        updated_by              text NOT NULL DEFAULT 'migration'
);

-- One rentable unit: an instance type (or a notebook tier) in a region.
CREATE TABLE offerings (
        id                      text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,95}$'),
        provider_id             text NOT NULL REFERENCES providers (id),
        instance_type           text NOT NULL,
        accelerator_id          text NOT NULL REFERENCES accelerators (id),
        gpus_per_instance       integer NOT NULL CHECK (gpus_per_instance BETWEEN 1 AND 1024),
        vcpus                   integer CHECK (vcpus > 0),
        ram_bytes               bigint CHECK (ram_bytes > 0),
        region                  text NOT NULL,
        interconnect            text,           -- between the GPUs inside the instance
        interconnect_bytes_per_s double precision CHECK (interconnect_bytes_per_s > 0),
        network_bytes_per_s     double precision CHECK (network_bytes_per_s > 0), -- between instances
        notes                   text,
        source                  text NOT NULL CHECK (source <> ''),
        source_date             date NOT NULL,
        updated_at              timestamptz NOT NULL DEFAULT now(),
        updated_by              text NOT NULL DEFAULT 'migration'
);
CREATE INDEX offerings_accelerator ON offerings (accelerator_id);
CREATE INDEX offerings_provider ON offerings (provider_id);

-- Hourly prices, append-only: a change is a new row; rows are never
-- updated or deleted (see the trigger below).  current_prices picks the
-- newest row per offering and pricing kind.
CREATE TABLE prices (
        id                      bigserial PRIMARY KEY,
        offering_id             text NOT NULL REFERENCES offerings (id),
        pricing                 text NOT NULL CHECK (pricing IN ('on_demand', 'spot', 'reserved')),
        term_months             integer CHECK (term_months > 0),       -- reserved only
        usd_per_hour            numeric(14, 6) NOT NULL CHECK (usd_per_hour >= 0),  -- whole instance
        currency                text NOT NULL DEFAULT 'USD' CHECK (currency = 'USD'),
        as_of                   date NOT NULL,
        source                  text NOT NULL CHECK (source <> ''),
        recorded_at             timestamptz NOT NULL DEFAULT now(),
        recorded_by             text NOT NULL DEFAULT 'migration',
        CHECK ((pricing = 'reserved') = (term_months IS NOT NULL))
);
CREATE INDEX prices_offering ON prices (offering_id, pricing, as_of DESC, id DESC);

CREATE VIEW current_prices AS
        SELECT DISTINCT ON (offering_id, pricing) *
        FROM prices
        ORDER BY offering_id, pricing, as_of DESC, id DESC;

-- Purchase prices for hardware a team could buy, also append-only.
CREATE TABLE purchase_prices (
        id                      bigserial PRIMARY KEY,
        accelerator_id          text NOT NULL REFERENCES accelerators (id),
        condition               text NOT NULL CHECK (condition IN ('new', 'used')),
        usd                     numeric(12, 2) NOT NULL CHECK (usd > 0),  -- per board
        as_of                   date NOT NULL,
        source                  text NOT NULL CHECK (source <> ''),
        recorded_at             timestamptz NOT NULL DEFAULT now(),
        recorded_by             text NOT NULL DEFAULT 'migration'
);

CREATE VIEW current_purchase_prices AS
        SELECT DISTINCT ON (accelerator_id, condition) *
        FROM purchase_prices
        ORDER BY accelerator_id, condition, as_of DESC, id DESC;

CREATE FUNCTION forbid_history_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
        RAISE EXCEPTION 'price history is append-only: % on % refused', TG_OP, TG_TABLE_NAME
                USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER prices_append_only BEFORE UPDATE OR DELETE ON prices
        FOR EACH ROW EXECUTE FUNCTION forbid_history_rewrite();
CREATE TRIGGER purchase_prices_append_only BEFORE UPDATE OR DELETE ON purchase_prices
        FOR EACH ROW EXECUTE FUNCTION forbid_history_rewrite();

-- Named assumptions for owning hardware (electricity price, utilisation,
-- service life, PUE, ...).  value is numeric; unit says what it means.
CREATE TABLE settings (
        key                     text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
        value                   double precision NOT NULL,
        unit                    text NOT NULL,
        description             text NOT NULL,
        source                  text NOT NULL CHECK (source <> ''),
        source_date             date NOT NULL,
        updated_at              timestamptz NOT NULL DEFAULT now(),
        updated_by              text NOT NULL DEFAULT 'migration'
);

-- Catalog models.  The architecture is stored as the model's own Hugging
-- Face config.json, so catalog models and pasted configs go through one
-- importer.  published_parameters is the count the model's authors state.
CREATE TABLE models (
        id                      text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
        name                    text NOT NULL,
        family                  text NOT NULL,
        hf_config               jsonb NOT NULL,
        published_parameters    bigint NOT NULL CHECK (published_parameters > 0),
        parameters_source       text NOT NULL CHECK (parameters_source <> ''),
        notes                   text,
        updated_at              timestamptz NOT NULL DEFAULT now(),
        updated_by              text NOT NULL DEFAULT 'migration'
);

-- Who changed what, for every write made through the API.
CREATE TABLE audit_log (
        id                      bigserial PRIMARY KEY,
        at                      timestamptz NOT NULL DEFAULT now(),
        actor                   text NOT NULL,
        action                  text NOT NULL,
        entity                  text NOT NULL,
        entity_id               text NOT NULL,
        request_id              text,
        payload                 jsonb
);

-- Replicas keep an in-memory snapshot of these tables; any committed change
-- wakes them through LISTEN gpuplan_catalog (payload: the table name).
CREATE FUNCTION notify_catalog_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
        PERFORM pg_notify('gpuplan_catalog', TG_TABLE_NAME);
        RETURN NULL;
END
$$;
CREATE TRIGGER accelerators_notify AFTER INSERT OR UPDATE OR DELETE ON accelerators
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER providers_notify AFTER INSERT OR UPDATE OR DELETE ON providers
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER offerings_notify AFTER INSERT OR UPDATE OR DELETE ON offerings
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER prices_notify AFTER INSERT ON prices
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER purchase_prices_notify AFTER INSERT ON purchase_prices
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER settings_notify AFTER INSERT OR UPDATE OR DELETE ON settings
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
CREATE TRIGGER models_notify AFTER INSERT OR UPDATE OR DELETE ON models
        FOR EACH STATEMENT EXECUTE FUNCTION notify_catalog_change();
