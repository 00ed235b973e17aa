-- claims_read.lua: a consistent snapshot of one repository's scope claims, for a grant to decide on.
--
-- KEYS: 1 claims version, 2 claims index
-- ARGV: 1 now override (ms, '' = Redis TIME), 2 claim key prefix (claim key = prefix .. id)
-- Returns: {version, now, id1, owner1, mode1, globs1, expires1, id2, ...}

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local out = {redis.call('GET', KEYS[1]) or '0', now}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local c = redis.call('HMGET', ARGV[2] .. id, 'owner', 'mode', 'globs', 'expires_ms')
  if c[1] then
    table.insert(out, id)
    table.insert(out, c[1])
    table.insert(out, c[2])
    table.insert(out, c[3])
    table.insert(out, c[4])
  end
end
return out
