-- Argo CD health check for assay.dev/Evaluation (resource.customizations.health.assay.dev_Evaluation).
-- Without it Argo CD counts an Evaluation as Healthy the moment it exists, so a release gate would pass
-- silently. Only conditions of the current generation count (kstatus and `kubectl wait` skip stale ones):
--   Progressing  no status yet, status.observedGeneration != metadata.generation, or Reconciling=True
--   Healthy      Ready=True: the verdict of this generation is Pass
--   Degraded     Stalled=True: verdict Blocked, or the run failed (the reason says why)
--   Progressing  anything else (no verdict yet)
local hs = {}
local generation = obj.metadata.generation

local function current(name)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == name then
      if condition.observedGeneration ~= nil and condition.observedGeneration ~= generation then
        return nil
      end
      return condition
    end
  end
  return nil
end

if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Assay operator to pick up the evaluation"
  return hs
end
if obj.status.observedGeneration == nil or obj.status.observedGeneration ~= generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the Assay operator to reconcile generation " .. tostring(generation)
  return hs
end

local reconciling = current("Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = reconciling.message or "Evaluation running"
  return hs
end

local ready = current("Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "Pass"
  if obj.status.score ~= nil then
    hs.message = hs.message .. ": score " .. string.format("%.3f", obj.status.score)
  end
  if obj.status.tickets ~= nil and obj.status.tickets.summary ~= nil then
    hs.message = hs.message .. ", tickets " .. obj.status.tickets.summary
  end
  if obj.status.override ~= nil and obj.status.override.by ~= nil then
    -- a person overrode the gate: say who, so a sync never passes on it silently
    hs.message = hs.message .. " (overridden by " .. obj.status.override.by .. "; the gate said " ..
      (obj.status.override.gateVerdict or "?") .. ")"
  end
  return hs
end

local stalled = current("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.message or ""
  if string.sub(hs.message, 1, 7) ~= "Blocked" then
    hs.message = "Blocked (" .. (stalled.reason or "Stalled") .. "): " .. hs.message
  end
  return hs
end

hs.status = "Progressing"
hs.message = "No verdict yet for generation " .. tostring(generation)
return hs
