// Shared by the built-in functions' conformance tests: responses in proto3 JSON as protojson writes them.
export { responseToJson as responseJson } from "../../src/render/functions/protojson.js";
