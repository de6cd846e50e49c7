/** go-yaml (v2 and v3) as Go code sees it: Marshal (v3) and Unmarshal into interface{}. */
export { marshalYaml, yamlKeyLess } from "./encode.js";
export { unmarshalYaml, YamlError, type DecodeOptions } from "./decode.js";
export { resolvePlain, type YamlVersion } from "./resolve.js";
