-- Argo CD health check for storagebench.io/StorageBenchmarkSchedule.
--
-- Healthy     the schedule is valid and its latest completed run passed (or
--             none has completed yet); a run in progress is its normal life
-- Degraded    the spec is invalid, the latest run failed (thresholds, drift
--             with severity Fail, or the run itself), or it was inconclusive
-- Progressing no status yet, or a status of an older spec
--
-- Drift with severity Warn leaves the schedule Healthy and is named in the
-- message. Never Unknown; base library only, as the StorageBenchmark check,
-- whose generation and condition helpers this repeats: Argo CD runs each
-- health script alone (no require in its sandbox).
local hs = {}

local generation = 0
if obj.metadata ~= nil and obj.metadata.generation ~= nil then
  generation = obj.metadata.generation
end

if obj.status == nil or obj.status.observedGeneration == nil or obj.status.observedGeneration ~= generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to read generation " .. tostring(generation)
  return hs
end

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
  hs.message = describe(ready)
  local drifted = condition("Drifted")
  if drifted ~= nil and drifted.status == "True" then
    hs.message = hs.message .. "; " .. describe(drifted)
  end
  local reconciling = condition("Reconciling")
  if reconciling ~= nil and reconciling.status == "True" then
    hs.message = hs.message .. "; " .. tostring(reconciling.message)
  end
  return hs
end

if ready ~= nil then
  hs.status = "Degraded"
  hs.message = describe(ready)
  return hs
end

hs.status = "Progressing"
hs.message = "Waiting for the schedule's first status"
return hs
