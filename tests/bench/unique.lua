-- wrk script: POST the JSON file named by BENCH_BODY with its dataset
-- "samples" changed on every request, so that no two requests are the same
-- and the answer cache never stands in for the search.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
local template = f:read("*a")
f:close()

local n = 0

function setup(thread)
        thread:set("base", 1000000 + 10000000 * math.random(0, 1000))
end

function request()
        n = n + 1
        local body = template:gsub('"samples": *%d+', '"samples": ' .. (base + n))
        return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
