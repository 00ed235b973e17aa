-- claims_copy.lua: a run's copy of a scope claim (gateway/store/claims.py), whose expiry only grows
-- (a renew racing a key's mint ends on the later expiry).
--
-- KEYS: 1 the run's copy of the claim
-- ARGV: 1 the claim's fencing token, 2 its expiry (ms)
local held = redis.call('HMGET', KEYS[1], 'token', 'expires_ms')
if held[1] ~= ARGV[1] or tonumber(held[2] or '0') < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'token', ARGV[1], 'expires_ms', ARGV[2])
end
return 1
