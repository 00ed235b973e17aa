-- claims_grant.lua: grant a scope claim decided on a snapshot, only if no grant or release happened since.
--
-- The overlap of globs is decided in the gateway (hook/globs.py) on the snapshot claims_read.lua returned;
-- this script makes that decision exact: the version it was taken at must still be current (compare and
-- swap), so two claimers can never both be granted overlapping scopes. Expired claims are dropped here.
--
-- KEYS: 1 claims version, 2 claims index, 3 fencing counter, 4 the new claim's key
-- ARGV: 1 now override, 2 expected version, 3 claim id, 4 owner, 5 mode, 6 globs (JSON), 7 ttl ms,
--       8 claim key prefix
-- Returns: {'granted', token, expires_ms} or {'stale'}

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[2] then return {'stale'} end
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local expires = tonumber(redis.call('HGET', ARGV[8] .. id, 'expires_ms') or '0')
  if expires <= now then
    redis.call('DEL', ARGV[8] .. id)
    redis.call('SREM', KEYS[2], id)
  end
end
local token = redis.call('INCR', KEYS[3])
local ttl = tonumber(ARGV[7])
redis.call('HSET', KEYS[4], 'owner', ARGV[4], 'mode', ARGV[5], 'globs', ARGV[6], 'token', token,
           'expires_ms', now + ttl, 'ttl_ms', ttl)
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('INCR', KEYS[1])
return {'granted', token, now + ttl}
