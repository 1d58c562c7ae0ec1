/**
 * The token bucket as one atomic Redis script, timed by Redis's own clock (`TIME`) so replicas of the gateway
 * never disagree about elapsed time. KEYS[1]: the bucket hash (`tokens`, `ts` in ms). ARGV: capacity, refill per
 * minute, cost (0 looks without taking or writing). Returns {allowed (0|1), whole tokens left, ms until one token,
 * ms until full}. The hash expires once it would be full again: an absent bucket is a full one.
 */
export const TOKEN_BUCKET_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 60000
local cost = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
elseif now > ts then
  tokens = math.min(capacity, tokens + (now - ts) * per_ms)
else
  tokens = math.min(capacity, tokens)
end
local allowed = 0
if tokens >= math.max(cost, 1) then
  allowed = 1
  tokens = tokens - cost
end
local until_one = 0
if tokens < 1 then until_one = math.ceil((1 - tokens) / per_ms) end
local until_full = math.ceil((capacity - tokens) / per_ms)
if cost > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.max(until_full, 1))
end
return {allowed, math.floor(tokens), until_one, until_full}
`;
