-- Argo CD health check for assay.dev/Campaign (resource.customizations.health.assay.dev_Campaign).
-- A Campaign is Healthy only when it decided to promote its winner; keeping the incumbent is Degraded, so
-- a sync wave after it (the winner's release) does not run. Only conditions of the current generation count:
--   Progressing  no status yet, status.observedGeneration != metadata.generation, or Reconciling=True
--   Healthy      Ready=True: promote the release-key winner
--   Degraded     Stalled=True: no promotion (the reason says why: NoPromotion, NoWinner, NotComparable, ...)
--   Progressing  AwaitingApproval=True: promotion decided, waiting for a person (approval: Manual)
--   Progressing  anything else (no decision yet)
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
  hs.message = "Waiting for the Assay operator to pick up the campaign"
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
  hs.message = reconciling.message or "Evaluations running"
  return hs
end

local ready = current("Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ("promote " .. tostring(obj.status.winner))
  return hs
end

local awaiting = current("AwaitingApproval")
if awaiting ~= nil and awaiting.status == "True" then
  hs.status = "Progressing"
  hs.message = "Awaiting approval: " .. (awaiting.message or "")
  return hs
end

local stalled = current("Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = "No promotion (" .. (stalled.reason or "Stalled") .. "): " .. (stalled.message or "")
  return hs
end

hs.status = "Progressing"
hs.message = "No decision yet for generation " .. tostring(generation)
return hs
