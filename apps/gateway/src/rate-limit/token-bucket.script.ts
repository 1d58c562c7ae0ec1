/**
 * The token bucket as one atomic Redis script over one or more buckets, timed by Redis's own clock (`TIME`) so
 * replicas of the gateway never disagree about elapsed time. KEYS: the buckets, each a string
 * `<tokens>:<updated at, ms>` (one GET and one SET per take: on this kind of machine every command costs). ARGV: for
 * each key in order, its capacity, refill per minute, cost (0 looks without taking or writing) and the most it may
 * grant (a lease: as many whole tokens as are there, up to that, never fewer than the cost). Returns, for each key
 * in order, {allowed (0|1), whole tokens left, ms until one token, ms until full, tokens granted}. Buckets are taken one
 * after another, so a key named twice sees its first take. A bucket expires once it would be full again: an absent
 * bucket is a full one. One call serves every take the gateway gathered in one turn of its event loop.
 */
export const TOKEN_BUCKET_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  local capacity = tonumber(ARGV[i * 4 - 3])
  local per_ms = tonumber(ARGV[i * 4 - 2]) / 60000
  local cost = tonumber(ARGV[i * 4 - 1])
  local want = tonumber(ARGV[i * 4])
  local tokens = capacity
  local state = redis.call('GET', key)
  if state then
    local stored, ts = string.match(state, '^([^:]+):(%d+)$')
    stored = tonumber(stored)
    ts = tonumber(ts)
    if stored and ts then
      if now > ts then
        tokens = math.min(capacity, stored + (now - ts) * per_ms)
      else
        tokens = math.min(capacity, stored)
      end
    end
  end
  local allowed = 0
  local granted = 0
  if tokens >= math.max(cost, 1) then
    allowed = 1
    if cost > 0 then granted = math.max(cost, math.min(want, math.floor(tokens))) end
    tokens = tokens - granted
  end
  local until_one = 0
  if tokens < 1 then until_one = math.ceil((1 - tokens) / per_ms) end
  local until_full = math.ceil((capacity - tokens) / per_ms)
  if cost > 0 then
    redis.call('SET', key, string.format('%.17g:%d', tokens, now), 'PX', math.max(until_full, 1))
  end
  out[#out + 1] = allowed
  out[#out + 1] = math.floor(tokens)
  out[#out + 1] = until_one
  out[#out + 1] = until_full
  out[#out + 1] = granted
end
return out
`;
