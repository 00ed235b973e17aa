-- raise_pack_copy.lua: a run's copy of which global pack is in force, raised to a newer one only
-- (gateway/store/packs.py). Two installs copying at once end on the later one.
--
-- KEYS: 1 the run's hash
-- ARGV: 1 the pack's serial, 2 its version
-- Returns 1 when the copy was raised (or the run had none), 0 when it already held this serial or a later one.
local held = redis.call('HMGET', KEYS[1], 'g_serial', 'g_version')
if not held[2] or tonumber(ARGV[1]) > tonumber(held[1] or '0') then
  redis.call('HSET', KEYS[1], 'g_serial', ARGV[1], 'g_version', ARGV[2])
  return 1
end
return 0
