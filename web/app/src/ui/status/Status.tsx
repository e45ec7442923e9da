// The server's status, for admins and the owner (#/community/status, GetServerStatus): the
// version and whether a newer one is out, the members and how many were active, messages a day
// (a bar chart in CSS), the storage used, the last backup and the free disk. There is no event
// for any of it: loaded when the screen opens, every minute while it is open, and by hand.

import { useEffect, useId, useState } from "preact/hooks";
import type { GetServerStatusResponse } from "../../gen/svc/v1/server_pb";
import { errorText, type Api } from "../../lib/api";
import { formatSize } from "../../lib/upload";
import { formatFull, formatTime } from "../common";
import { ago } from "../moderation/parts";
import "./status.css";

/** Days of messages the chart shows. */
const DAYS = 30;
const REFRESH_MS = 60_000;

const count = new Intl.NumberFormat("en");

export function StatusScreen(props: { api: Api }) {
  const { api } = props;
  const [status, setStatus] = useState<GetServerStatusResponse | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const load = async () => {
    setBusy(true);
    try {
      setStatus(await api.server.getServerStatus({ days: DAYS }));
      setError("");
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void load();
    const t = window.setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(t);
  }, []);
  return (
    <div class="admin-page status-page">
      <div class="status-head">
        <h2>Server status</h2>
        <span class="muted small" role="status">
          {busy ? "Updating…" : status ? `Updated at ${formatTime(Number(status.atMs))}` : ""}
        </span>
        <button type="button" class="button" disabled={busy} onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {error && (
        <p class="error-row" role="alert">
          {error}
        </p>
      )}
      {!status ? !error && <p class="muted">Loading…</p> : <StatusBody status={status} />}
    </div>
  );
}

function StatusBody(props: { status: GetServerStatusResponse }) {
  const s = props.status;
  const now = Number(s.atMs);
  const storage = s.storage;
  const disk = s.disk;
  const backup = s.lastBackup;
  const bucket = storage ? Number(storage.filesBytes + storage.emojiBytes + storage.previewBytes) : 0;
  const ids = useId();
  return (
    <>
      <section class="admin-section" aria-labelledby={ids + "-version"}>
        <h2 id={ids + "-version"}>Version</h2>
        <p>
          Hearth <strong data-stat="version">{s.serverVersion || "(unknown)"}</strong>
          {s.serverTrack && <span class="muted"> · {s.serverTrack}</span>}
        </p>
        {s.updateAvailable ? (
          <p class="note" data-stat="update">
            A newer version is out: Hearth {s.updateAvailable}.
          </p>
        ) : (
          <p class="muted small" data-stat="update">
            No newer version is known.
          </p>
        )}
        <p class="muted small">Running since {formatFull(Number(s.startedAtMs))}.</p>
      </section>

      <section class="admin-section" aria-labelledby={ids + "-people"}>
        <h2 id={ids + "-people"}>People</h2>
        <dl class="stats">
          <Stat name="members" label="Members" value={count.format(s.members)} />
          <Stat name="active-today" label="Active today" value={count.format(s.activeToday)} />
          <Stat name="active-week" label="Active this week" value={count.format(s.activeWeek)} />
          <Stat name="bots" label="Bots" value={count.format(s.bots)} />
        </dl>
      </section>

      <section class="admin-section" aria-labelledby={ids + "-messages"}>
        <h2 id={ids + "-messages"}>Messages a day</h2>
        <Chart days={s.messagesPerDay.map((d) => ({ day: d.day, n: Number(d.messages) }))} />
      </section>

      <section class="admin-section" aria-labelledby={ids + "-storage"}>
        <h2 id={ids + "-storage"}>Storage</h2>
        {storage && (
          <dl class="stats">
            <Stat name="database" label="Database" value={formatSize(Number(storage.databaseBytes))} />
            <Stat name="bucket" label="Bucket" value={formatSize(bucket)} />
            <Stat name="files" label="Files" value={formatSize(Number(storage.filesBytes))} note={`${count.format(storage.files)} ${storage.files === 1n ? "file" : "files"}`} />
            <Stat name="emoji" label="Custom emoji" value={formatSize(Number(storage.emojiBytes))} note={`${count.format(storage.emoji)} emoji`} />
            <Stat name="previews" label="Link previews" value={formatSize(Number(storage.previewBytes))} note={`${count.format(storage.previews)} ${storage.previews === 1n ? "image" : "images"}`} />
          </dl>
        )}
      </section>

      <section class="admin-section" aria-labelledby={ids + "-backup"}>
        <h2 id={ids + "-backup"}>Last backup</h2>
        {!backup ? (
          <p class="muted" data-stat="backup">
            No backup yet. Start the server with -backup-to (a folder or a bucket) to take one every day.
          </p>
        ) : (
          <div data-stat="backup">
            <p>
              <strong>{backup.ok ? "✓ Succeeded" : "✕ Failed"}</strong> {ago(backup.atMs, now)} ({formatFull(Number(backup.atMs))})
            </p>
            {!backup.ok && backup.error && (
              <p class="error-row" role="alert">
                {backup.error}
              </p>
            )}
            <p class="muted small">
              {backup.location}
              {backup.bytes > 0n && ` · ${formatSize(Number(backup.bytes))}`}
            </p>
          </div>
        )}
      </section>

      <section class="admin-section" aria-labelledby={ids + "-disk"}>
        <h2 id={ids + "-disk"}>Disk</h2>
        {!disk || disk.totalBytes === 0n ? <p class="muted">The server cannot read its disk’s free space.</p> : <Disk free={Number(disk.freeBytes)} total={Number(disk.totalBytes)} threshold={Number(disk.fullThresholdBytes)} full={disk.full} />}
      </section>
    </>
  );
}

function Stat(props: { name: string; label: string; value: string; note?: string }) {
  return (
    <div class="stat">
      <dt>{props.label}</dt>
      <dd data-stat={props.name}>{props.value}</dd>
      {props.note && <dd class="muted small">{props.note}</dd>}
    </div>
  );
}

const dayName = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** "Nov 3" of a UTC day "2026-11-03". */
function shortDay(day: string): string {
  const t = Date.parse(day + "T00:00:00Z");
  return Number.isNaN(t) ? day : dayName.format(t);
}

/** Messages a day as bars (oldest first), with each day's count for screen readers and on hover. */
function Chart(props: { days: { day: string; n: number }[] }) {
  const { days } = props;
  if (days.length === 0) return <p class="muted">No days to show.</p>;
  const max = Math.max(...days.map((d) => d.n), 1);
  const total = days.reduce((a, d) => a + d.n, 0);
  const today = days[days.length - 1];
  return (
    <>
      <p>
        <strong data-stat="messages-today">{count.format(today.n)}</strong> today · <span data-stat="messages-total">{count.format(total)}</span> in the last {days.length}{" "}
        {days.length === 1 ? "day" : "days"}
      </p>
      <ol class="bars" aria-label={`Messages a day, the last ${days.length} days`}>
        {days.map((d) => (
          <li key={d.day} class="bar" title={`${shortDay(d.day)}: ${count.format(d.n)}`} data-day={d.day} data-messages={d.n}>
            <span class="bar-fill" style={{ height: `${(d.n / max) * 100}%` }} />
            <span class="visually-hidden">
              {shortDay(d.day)}: {count.format(d.n)} {d.n === 1 ? "message" : "messages"}
            </span>
          </li>
        ))}
      </ol>
      <div class="bars-axis muted small" aria-hidden="true">
        <span>{shortDay(days[0].day)}</span>
        <span>{shortDay(today.day)}</span>
      </div>
    </>
  );
}

/** Free space, with a warning as it nears the point where writes are refused. */
function Disk(props: { free: number; total: number; threshold: number; full: boolean }) {
  const { free, total, threshold, full } = props;
  const used = Math.min(Math.max(1 - free / total, 0), 1);
  const low = !full && free < threshold * 2;
  return (
    <>
      <p>
        <strong data-stat="disk-free">{formatSize(free)}</strong> free of {formatSize(total)}
      </p>
      <div class={full ? "meter meter-full" : low ? "meter meter-low" : "meter"} role="meter" aria-label="Disk used" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(used * 100)}>
        <span class="meter-fill" style={{ width: `${used * 100}%` }} />
      </div>
      {full ? (
        <p class="error-row" role="alert" data-stat="disk-note">
          The disk is full: writes are refused (messages, uploads, changes) until more than {formatSize(threshold)} is free. Reading goes on.
        </p>
      ) : low ? (
        <p class="note" data-stat="disk-note">
          The disk is nearly full: below {formatSize(threshold)} free, the server refuses writes. Free some space, or move the data to a larger disk.
        </p>
      ) : (
        <p class="muted small" data-stat="disk-note">
          Writes stop below {formatSize(threshold)} free, before the disk fills.
        </p>
      )}
    </>
  );
}
