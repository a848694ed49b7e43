-- 0022: what owning a GPU costs beyond the card, for a like-for-like
-- rent-or-buy (server/plan/rent_vs_buy.c): the server around it, its
-- power at the facility's PUE, colocation space per kW, and resale value.
--
-- Monthly cost of owning n GPUs:
--   (boards x purchase + n x server_usd_per_gpu) x (1 - resale_fraction)
--     / (ownership_life_years x 12)
--   + n x (TDP + host_watts_per_gpu) / 1000 x hosting_usd_per_kw_month
--   + n x (TDP x owned_utilisation + host_watts_per_gpu) x datacenter_pue
--     / 1000 x electricity_usd_per_kwh x hours in use.

INSERT INTO settings (key, value, unit, description, source, source_date) VALUES
('server_usd_per_gpu', 4001, 'USD per GPU',
 'What the server around each GPU costs (CPUs, memory, NICs and transceivers, storage, chassis, power supplies), per GPU slot of an 8-GPU server: 32 010 USD for the non-GPU parts of a DGX H100 / 8.',
 'SemiAnalysis bill of materials of a DGX H100 (https://www.semianalysis.com/p/ai-server-cost-analysis-memory-is), summed in github.com/epoch-research/training-cost-trends (non_gpu_dgx_cost = 32 010 USD)', '2024-06-01'),
('host_watts_per_gpu', 575, 'W per GPU',
 'Power the rest of a GPU server draws (CPUs, memory, NICs, fans), per GPU: a DGX H100 draws up to 10.2 kW with eight 700 W GPUs, (10 200 - 8 x 700) / 8 = 575 W.',
 'https://resources.nvidia.com/en-us-dgx-systems/ai-enterprise-dgx (NVIDIA DGX H100 datasheet: system power usage ~10.2 kW max)', '2026-11-27'),
('hosting_usd_per_kw_month', 184.06, 'USD per kW per month',
 'Colocation: the average monthly asking rate for a 250-500 kW requirement across North American primary markets, per kW of provisioned power; energy is metered on top (electricity_usd_per_kwh x datacenter_pue).',
 'https://www.cbre.com/insights/reports/north-america-data-center-trends-h2-2024 (CBRE North America Data Center Trends H2 2024)', '2025-02-26'),
('resale_fraction', 0, 'fraction of purchase',
 'Share of the purchase (GPUs and servers) recovered by selling at the end of ownership_life_years. 0 by default: no resale is assumed, the conservative choice; set what your used-hardware market pays (the purchase_prices table keeps used prices for some GPUs).',
 'Planning assumption', '2026-11-27');

UPDATE settings SET description =
 'Superseded in rent-or-buy by host_watts_per_gpu (the server''s own draw) and datacenter_pue (the facility); kept for reference: watts drawn by the rest of a workstation per watt of GPU power.'
 WHERE key = 'host_power_overhead';
UPDATE settings SET description =
 'Power usage effectiveness of the facility that hosts owned servers: facility watts per IT watt (GPUs and host). Rent-or-buy multiplies the owned machines'' power by it (industry average).'
 WHERE key = 'datacenter_pue';
