// Protobuf's JSON reader, for the answers of the multipart endpoints (POST /upload, POST /emoji),
// which are JSON (API.md); a chunk of its own, loaded when an upload starts (lib/upload.ts): the
// Connect calls speak binary, so nothing else needs it.

import { fromJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";

/** The message of schema that body (parsed JSON) holds; fields the client does not know are skipped. */
export function readJson<S extends DescMessage>(schema: S, body: JsonValue): MessageShape<S> {
  return fromJson(schema, body, { ignoreUnknownFields: true });
}
