-- install_rules.lua: make a rule pack the one in force, atomically.
--
-- KEYS: 1 the global rules hash
-- ARGV: 1 mode ('absent': only if no pack is in force; 'force': replace), then field/value pairs
--       (rules, version, source, updated_ms)
-- Returns the version in force afterwards.
if ARGV[1] == 'force' or redis.call('EXISTS', KEYS[1]) == 0 then
  local fields = {}
  for i = 2, #ARGV do fields[i - 1] = ARGV[i] end
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(fields))
end
return redis.call('HGET', KEYS[1], 'version')
