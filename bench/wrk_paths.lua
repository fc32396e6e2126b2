-- Rotate through the request paths listed (one a line) in the file named by $BENCH_PATHS.
-- Each wrk thread starts at its own offset and strides by the thread count, so threads do not
-- send the same path at the same time; done() prints the figures as one JSON line.
local paths = {}
for line in io.lines(os.getenv("BENCH_PATHS")) do
  paths[#paths + 1] = line
end

local counter = 0
setup = function(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local i, step
init = function(args)
  i = tid or 0
  step = tonumber(os.getenv("BENCH_THREADS") or "1")
end

request = function()
  local path = paths[(i % #paths) + 1]
  i = i + step
  return wrk.format("GET", path)
end

-- With $BENCH_MAX_REQUESTS, each thread stops after that many responses (wrk still runs for its
-- duration): two servers compared by their memory have then answered the same requests.
local limit = tonumber(os.getenv("BENCH_MAX_REQUESTS") or "")
if limit then
  local answered = 0
  response = function(status, headers, body)
    answered = answered + 1
    if answered >= limit then
      wrk.thread:stop()
    end
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, "errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, ' ..
    '"latency_us": {"mean": %.1f, "p50": %d, "p90": %d, "p99": %d, "max": %d}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
