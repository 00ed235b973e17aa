-- claims_release.lua: the holder gives its claim back (only with the claim's current token).
--
-- KEYS: 1 the claim, 2 claims index, 3 claims version
-- ARGV: 1 token, 2 claim id
-- Returns: 1 released, 0 not held with this token

if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('INCR', KEYS[3])
return 1
