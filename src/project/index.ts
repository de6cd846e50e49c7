/**
 * The project room: Crossplane and Upbound projects (`crossplane-project.yaml`, `upbound.yaml`),
 * their embedded functions' names and folders, and which builder the CLI would use for each.
 * Its one door; the runtimes that run a folder's source live with the others in render/runner.
 */
export {
  projectsOf,
  findEmbeddedFunction,
  embeddedFunctions,
  embeddedFunctionName,
  rewriteImage,
  toDnsLabel,
  isProjectFile,
  type Project,
  type EmbeddedFunction,
} from "./project.js";
export { projectFunctionLanguage, builderEnvironment, BASE_IMAGES, LANGUAGE_NAMES, SOURCE_MOUNT, type ProjectLanguage } from "./language.js";
