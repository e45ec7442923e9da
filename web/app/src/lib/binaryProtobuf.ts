// @bufbuild/protobuf as the bundle sees it (build/chunks.go routes the imports of the package
// here, all but lib/protojson.ts's): the binary encoding, which is all the client speaks
// (lib/api.ts, useBinaryFormat). The package's index re-exports its JSON encoding too, which a
// bundler keeps in the start chunk as soon as the index is imported there and any chunk uses it;
// so these come from the package's own files. A new import of the package in the source that
// fails the build ("No matching export") is added here, from its file.
//
// Connect's transport imports the JSON encoding's reader and writer: it chooses the encoding
// when it runs, and would call these only if it were made to speak JSON. They say so.

export { create } from "../../node_modules/@bufbuild/protobuf/dist/esm/create.js";
export { fromBinary } from "../../node_modules/@bufbuild/protobuf/dist/esm/from-binary.js";
export { toBinary } from "../../node_modules/@bufbuild/protobuf/dist/esm/to-binary.js";

function jsonLeftOut(): never {
  throw new Error("the client is built with protobuf's binary encoding only (build/chunks.go)");
}

export const fromJson = jsonLeftOut;
export const fromJsonString = jsonLeftOut;
export const toJson = jsonLeftOut;
export const toJsonString = jsonLeftOut;
