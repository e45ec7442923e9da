// "Export my data", on the person's profile (EXTENSIONS.md 9): ExportMyData starts a zip of
// their profile, the messages they wrote and the files they uploaded, made in the background,
// and answers its signed link at once. The link answers 503 (with Retry-After) until the zip is
// ready: it is asked (HEAD) until then, and the person gets the download and how long it works
// (24 hours). The export is kept in the browser until its link expires (lib/storage.ts, dropped
// at sign-out): the profile shows it again, opened later or after a reload, with "Export again"
// for a newer one (within the server's few a day).

import { useEffect, useId, useState } from "preact/hooks";
import { Code } from "@connectrpc/connect";
import { absUrl, codeOf, errorText, isWebUrl, retryAfterMs, type Api } from "../../lib/api";
import { formatSize } from "../../lib/upload";
import { getExport, setExport, type DataExport } from "../../lib/storage";
import { ErrorRow, formatFull } from "../common";
import "./account.css";

/** How long the link of an export lasts, when it does not say (ExportMyData: 24 hours). */
const LINK_MS = 24 * 3600 * 1000;

type Phase = { kind: "idle" } | { kind: "asking" } | { kind: "making"; ex: DataExport } | { kind: "ready"; ex: DataExport; size: number };

/** Where an export's zip is: ready (with its size), still being made (wait ms), or gone (why). */
type Readiness = { ready: true; size: number } | { ready: false; wait: number; failed?: string };

async function readiness(url: string): Promise<Readiness> {
  let res: Response;
  try {
    res = await fetch(url, { method: "HEAD", cache: "no-store" });
  } catch {
    return { ready: false, wait: 5000 }; // the network: ask again
  }
  if (res.ok) return { ready: true, size: Number(res.headers.get("Content-Length")) || 0 };
  if (res.status === 503) return { ready: false, wait: Math.min(Math.max(Number(res.headers.get("Retry-After")) || 3, 1), 10) * 1000 };
  const failed =
    res.status === 403
      ? "The link of this export has expired (a link works 24 hours): export your data again."
      : res.status === 404
        ? "Your data could not be exported. Try again later."
        : `Your data could not be exported (the server answered ${res.status}). Try again later.`;
  return { ready: false, wait: 0, failed };
}

export function ExportData(props: { base: string; api: Pick<Api, "server">; memberId: string }) {
  const { base, memberId } = props;
  const [phase, setPhase] = useState<Phase>(() => {
    const ex = getExport(base, memberId);
    return ex ? { kind: "making", ex } : { kind: "idle" };
  });
  const [error, setError] = useState("");
  const id = useId();

  // While the zip is being made, its link is asked until it is ready or gone.
  const making = phase.kind === "making" ? phase.ex : undefined;
  useEffect(() => {
    if (!making) return;
    let stopped = false;
    let timer = 0;
    const check = async () => {
      const r = await readiness(making.url);
      if (stopped) return;
      if (r.ready) return setPhase({ kind: "ready", ex: making, size: r.size });
      if (r.failed) {
        setExport(base, memberId, undefined);
        setError(r.failed);
        return setPhase({ kind: "idle" });
      }
      timer = window.setTimeout(check, r.wait);
    };
    void check();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [making, base, memberId]);

  const ask = async () => {
    // A refusal leaves the export shown before, if any: its link still works.
    const before: Phase = phase.kind === "asking" ? { kind: "idle" } : phase;
    setError("");
    setPhase({ kind: "asking" });
    try {
      const res = await props.api.server.exportMyData({});
      const url = absUrl(props.base, res.url);
      if (!isWebUrl(url)) throw new Error("the server sent no link to the export");
      const exp = Number(new URL(url).searchParams.get("exp")) * 1000;
      const ex = { url, expires: exp > 0 ? exp : Date.now() + LINK_MS };
      setExport(base, memberId, ex);
      setPhase({ kind: "making", ex });
    } catch (e) {
      const wait = retryAfterMs(e);
      setError(
        codeOf(e) === Code.ResourceExhausted && wait > 0
          ? `You have exported your data as often as a day allows. You can again from ${formatFull(Date.now() + wait)}.`
          : `Your data was not exported: ${errorText(e)}`,
      );
      setPhase(before);
    }
  };

  return (
    <section class="export-data" aria-labelledby={id}>
      <h3 id={id} class="export-title">
        Your data
      </h3>
      <p class="muted small">A zip of your profile, the messages you wrote and the files you uploaded, made for you to download.</p>
      {(phase.kind === "idle" || phase.kind === "asking") && (
        <button type="button" class="button" disabled={phase.kind === "asking"} onClick={ask}>
          Export my data
        </button>
      )}
      {phase.kind === "making" && (
        <p class="export-status" role="status">
          Preparing your data… This can take a few minutes for a long history. You can close this and come back.
        </p>
      )}
      {phase.kind === "ready" && (
        <>
          <p class="export-status" role="status">
            Your data is ready.
          </p>
          <a class="button button-primary" href={phase.ex.url} download>
            Download your data (zip{phase.size > 0 ? ", " + formatSize(phase.size) : ""})
          </a>
          <p class="muted small">The link works for 24 hours, until {formatFull(phase.ex.expires)}; then the zip is deleted.</p>
          <button type="button" class="button" onClick={ask}>
            Export again
          </button>
        </>
      )}
      <ErrorRow error={error} />
    </section>
  );
}
