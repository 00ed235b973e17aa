-- install_rules.lua: make a rule pack the one in force, atomically (gateway/store/packs.py).
--
-- KEYS: 1 the global rules hash
-- ARGV: 1 mode ('absent': only if no pack is in force; 'force': replace), 2 now override (ms, '' = Redis TIME),
--       then field/value pairs (rules, version, source)
-- Returns {version in force afterwards, its serial, 1 if this call installed it else 0}. The serial is
-- max(previous + 1, now): it grows with every install, and still does after the store lost the hash.
local installed = 0
if ARGV[1] == 'force' or redis.call('EXISTS', KEYS[1]) == 0 then
  local now = tonumber(ARGV[2])
  if not now then
    local t = redis.call('TIME')
    now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  local serial = math.max(tonumber(redis.call('HGET', KEYS[1], 'serial') or '0') + 1, now)
  local fields = {}
  for i = 3, #ARGV do fields[i - 2] = ARGV[i] end
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'serial', string.format('%.0f', serial), 'updated_ms', string.format('%.0f', now),
             unpack(fields))
  installed = 1
end
local in_force = redis.call('HMGET', KEYS[1], 'version', 'serial')
return {in_force[1], in_force[2], installed}
