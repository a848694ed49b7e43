-- wrk script: POST the JSON file named by BENCH_BODY with a batch_size no
-- request has used before (each thread counts up from its own start), so
-- that every request is a configuration of tensors the server has not
-- seen: neither an answer cache nor the allocator replay's table
-- (server/core/reserve_cache.h) can stand in for the work.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
local template = f:read("*a")
f:close()

local n = 0
local threads = 0

function setup(thread)
        threads = threads + 1
        thread:set("base", 100 + 200000 * threads)
end

function request()
        n = n + 1
        local body = template:gsub('"batch_size": *%d+', '"batch_size": ' .. (base + n))
        return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
