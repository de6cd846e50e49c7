/**
 * The policy room's one door: policies in (loadPolicies), objects in, findings out
 * (evaluatePolicies). It knows nothing of rendering, commands or GitHub.
 */
export { loadPolicies, type PolicySet } from "./load.js";
export { evaluatePolicies, mayBeMatched } from "./evaluate.js";
export { builtinResource, crdResources } from "./resources.js";
export { withGeneratedName } from "./request.js";
export {
  repositoryPolicies,
  checkManifests,
  runPolicies,
  admitted,
  mergeExplain,
  isPolicyObject,
  isAdmissionPolicy,
  changedPolicies,
  removedPolicies,
  policyRemovedFinding,
  type RepositoryPolicies,
  type PolicyRun,
} from "./repository.js";
export { compileCelRule, type CelRuleResult } from "../cel/rule.js";
export type {
  EvaluateOptions,
  Location,
  Operation,
  Outcome,
  PolicyEvaluation,
  PolicyExplain,
  PolicyManifest,
  PolicyResult,
  PolicyTarget,
  ResourceFor,
  ResourceInfo,
  UserInfo,
} from "./types.js";
