-- claims_renew.lua: the holder's heartbeat. A lapsed claim is never revived: its holder claims again and
-- gets a new fencing token, so writes made under the old one stay refused.
--
-- KEYS: 1 the claim
-- ARGV: 1 now override, 2 token, 3 ttl ms
-- Returns: the new expiry (ms), or 0 when the claim lapsed, was released or has another token

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local c = redis.call('HMGET', KEYS[1], 'token', 'expires_ms')
if c[1] ~= ARGV[2] or tonumber(c[2] or '0') <= now then return 0 end
redis.call('HSET', KEYS[1], 'expires_ms', now + tonumber(ARGV[3]))
return now + tonumber(ARGV[3])
