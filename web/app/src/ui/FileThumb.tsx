// A file in the message box, before it is sent: a picture shows as a small thumbnail of itself
// (an object URL of the file picked, let go when the file leaves the box: removed, sent, or the
// box shows another channel's draft), anything else as a document mark.

import { useEffect, useMemo } from "preact/hooks";
import "./rich.css";

/** Pictures every browser draws (a file's type is what the browser says it is, from its name). */
const PICTURE = /^image\/(png|jpeg|gif|webp|avif|bmp|svg\+xml)$/;

export function FileThumb(props: { file?: File }) {
  const { file } = props;
  const url = useMemo(() => (file && PICTURE.test(file.type) ? URL.createObjectURL(file) : undefined), [file]);
  useEffect(() => () => url && URL.revokeObjectURL(url), [url]);
  if (!url) {
    return (
      <span class="upload-thumb upload-thumb-file" aria-hidden="true">
        📄
      </span>
    );
  }
  return <img class="upload-thumb" src={url} alt="" width={40} height={40} decoding="async" />;
}
