-- wrk script: POST the JSON file named by BENCH_BODY, with its batch_size and
-- sequence_length varied request by request (512 distinct bodies: batch
-- 1..64, sequence 16..512, the model's whole context), so that no response
-- cache could stand in for the estimation itself.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
local template = f:read("*a")
f:close()

local prepared = {}
local n = 0

function init(args)
        for i = 1, 512 do
                local batch = 1 + (i * 7) % 64
                local seq = 16 * (1 + (i * 13 + math.floor(i / 64) * 5) % 32)
                local body = template:gsub('"batch_size": *%d+', '"batch_size": ' .. batch)
                body = body:gsub('"sequence_length": *%d+', '"sequence_length": ' .. seq)
                prepared[i] = wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
        end
end

function request()
        n = n + 1
        return prepared[n % #prepared + 1]
end
