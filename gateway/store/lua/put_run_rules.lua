-- put_run_rules.lua: a run's own rules and their version, together (a reader never sees one without the other).
--
-- KEYS: 1 the run's rules (JSON), 2 the run's hash
-- ARGV: 1 the rules as JSON, 2 their version ('0' = none)
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'rules_version', ARGV[2])
return 1
