// The person's voice settings, kept in this browser for every server: push-to-talk and its key,
// and how loud each person plays (by member id).

import { readJSON } from "../lib/storage";

export type VoicePrefs = {
  /** The microphone sends only while pttKey is held. */
  readonly ptt: boolean;
  /** The key, as KeyboardEvent.code names it ("Backquote" is ` on most keyboards). */
  readonly pttKey: string;
  /** Volumes other than 1 (full), from 0 to 1, by member id. */
  readonly volumes: Readonly<Record<string, number>>;
};

const KEY = "hearth.voice";

export function loadVoicePrefs(): VoicePrefs {
  const p = readJSON<Partial<VoicePrefs>>(localStorage, KEY, {});
  return {
    ptt: p.ptt === true,
    pttKey: typeof p.pttKey === "string" && p.pttKey ? p.pttKey : "Backquote",
    volumes: p.volumes && typeof p.volumes === "object" ? p.volumes : {},
  };
}

export function saveVoicePrefs(p: VoicePrefs): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch {
    // Storage full or refused: the setting lasts as long as the tab.
  }
}

/** A key's name as people know it: "Backquote" is "`", "KeyV" is "V", "Space" stays. */
export function keyName(code: string): string {
  if (code === "Backquote") return "`";
  const m = /^(?:Key|Digit)(.)$/.exec(code);
  return m ? m[1] : code.replace(/(Left|Right)$/, " ($1)");
}
