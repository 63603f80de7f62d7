-- Argo CD health check for storagebench.io/StorageBenchmark.
--
-- Healthy     the run for the current spec completed and its thresholds hold
-- Degraded    the run failed, or its thresholds failed or could not be judged
-- Progressing anything else: no status yet, a run in progress, or a status
--             that still describes an older spec (observedGeneration behind)
--
-- It never returns Unknown: Argo CD treats Unknown hooks as failed and
-- Unknown wave resources as "wait", neither of which helps a gate.
-- Only Lua's base library is used (no string functions), so it runs
-- without resource.customizations.useOpenLibs.
local hs = {}

local generation = 0
if obj.metadata ~= nil and obj.metadata.generation ~= nil then
  generation = obj.metadata.generation
end

if obj.status == nil or obj.status.observedGeneration == nil or obj.status.observedGeneration ~= generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to start the run for generation " .. tostring(generation)
  return hs
end

-- A condition counts only if it describes the current generation.
local function condition(kind)
  if obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == kind and (c.observedGeneration == nil or c.observedGeneration == generation) then
      return c
    end
  end
  return nil
end

local function describe(c)
  local text = tostring(c.reason)
  if c.message ~= nil and c.message ~= "" then
    text = text .. ": " .. c.message
  end
  return text
end

local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
  return hs
end

local ready = condition("Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "Verdict " .. tostring(obj.status.verdict)
  if obj.status.recommendation ~= nil then
    hs.message = hs.message .. "; recommended target " .. tostring(obj.status.recommendation.target)
  end
  return hs
end

hs.status = "Progressing"
hs.message = "Benchmark running"
if obj.status.progress ~= nil and obj.status.progress.summary ~= nil then
  hs.message = hs.message .. ": " .. obj.status.progress.summary .. " cells"
  if obj.status.progress.currentTarget ~= nil and obj.status.progress.currentTarget ~= "" then
    hs.message = hs.message .. ", target " .. obj.status.progress.currentTarget
  end
end
return hs
