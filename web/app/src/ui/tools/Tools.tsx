// The community's tools beside the chat: search, custom emoji, moderation (lockdown, reports,
// bans, the audit log and the filters) and bots and plugins. The sidebar offers each only to the ranks that may use it (search and
// emoji to everyone, moderation to moderators and higher, bots and plugins to admins and the
// owner); each opens in a dialog of its own. Ctrl+K (or ⌘K) opens the search from anywhere.

import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Message } from "../../gen/svc/v1/types_pb";
import { isAdmin, isModerator } from "../../lib/ranks";
import type { Api } from "../../lib/api";
import type { Commands } from "../../state/commands";
import { useStore, type Store } from "../../state/store";
import { Dialog } from "../common";
import { lazyView } from "../lazy";
import { moderationTabs, type ModerationCommands } from "../moderation/Moderation";
import { openMessage } from "../search/open";
import "./tools.css";

// Each tool is a chunk of its own, loaded when it is first opened; the search, one keystroke
// away, as soon as the browser is idle after the start (SearchButton).
const SearchDialogBody = lazyView("the search", () => import("../search/SearchDialog"), (m) => m.SearchDialogBody);
const EmojiManager = lazyView("the custom emoji", () => import("../emoji/EmojiManager"), (m) => m.EmojiManager);
const LockdownSwitch = lazyView("the lockdown switch", () => import("../moderation/Lockdown"), (m) => m.LockdownSwitch);
const Bots = lazyView("the bots", () => import("../bots/Bots"), (m) => m.Bots);
const Plugins = lazyView("the plugins", () => import("../bots/Plugins"), (m) => m.Plugins);

export type ToolName = "search" | "emoji" | "moderation" | "bots";
export type SetTool = (fn: (t: ToolName | null) => ToolName | null) => void;

/** The search box at the top of the sidebar (a button that opens the search), and Ctrl+K. */
export function SearchButton(props: { onTool: (t: ToolName) => void }) {
  const open = useRef(props.onTool);
  open.current = props.onTool;
  useEffect(() => SearchDialogBody.chunk.prefetch(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        if (!document.querySelector("dialog[open]")) open.current("search");
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <button type="button" class="search-button" aria-keyshortcuts="Control+K" onClick={() => props.onTool("search")}>
      <span aria-hidden="true">🔍</span>
      <span class="search-button-text">Search messages</span>
      <kbd class="search-button-key" aria-hidden="true">
        Ctrl K
      </kbd>
    </button>
  );
}

/** The sidebar's "Community" section: the tools the person's rank allows. */
export function ToolLinks(props: { store: Store; onTool: (t: ToolName) => void }) {
  const state = useStore(props.store, "me", "reports");
  const item = (tool: ToolName, icon: string, label: string, badge = 0, what = "") => (
    <li>
      <button type="button" class="side-link tool-link" aria-label={badge > 0 ? `${label}, ${badge} ${what}` : undefined} onClick={() => props.onTool(tool)}>
        <span class="side-icon" aria-hidden="true">
          {icon}
        </span>
        <span class="side-name">{label}</span>
        {badge > 0 && (
          <span class="badge badge-mention" aria-hidden="true">
            {badge}
          </span>
        )}
      </button>
    </li>
  );
  return (
    <section class="side-section" aria-label="Community">
      <h2 class="side-title">Community</h2>
      <ul class="side-list">
        {item("emoji", "☺", "Custom emoji")}
        {isModerator(state) && item("moderation", "⚑", "Moderation", state.openReports, state.openReports === 1 ? "open report" : "open reports")}
        {isAdmin(state) && item("bots", "⚙", "Bots and plugins")}
      </ul>
    </section>
  );
}

/**
 * The search's body, with the names and channels of the render: a rename, or an imported member
 * claimed, shows in the results on screen.
 */
function SearchTool(props: { store: Store; api: Api; onOpen: (m: Message) => void }) {
  const state = useStore(props.store, "channels", "members", "me");
  return <SearchDialogBody state={state} api={props.api} onOpen={props.onOpen} />;
}

/** The open tool's dialog; closing it forgets the tool unless another was opened meanwhile. */
export function ToolDialog(props: { store: Store; act: Pick<Commands, "deleteEmoji"> & ModerationCommands; api: Api; tool: ToolName | null; setTool: SetTool }) {
  const { store, api, tool } = props;
  const state = useStore(store, "me", "reports");
  if (!tool) return null;
  // A dialog's close event comes a task after it closed: by then another may have opened.
  const close = () => props.setTool((t) => (t === tool ? null : t));
  const open = (m: Message) => {
    props.setTool(() => null);
    openMessage(store, m);
  };
  switch (tool) {
    case "search":
      return (
        <Dialog key="search" title="Search" onClose={close} wide>
          <SearchTool store={store} api={api} onOpen={open} />
        </Dialog>
      );
    case "emoji":
      return (
        <Dialog key="emoji" title="Custom emoji" onClose={close} wide>
          <EmojiManager store={store} act={props.act} api={api} />
        </Dialog>
      );
    case "moderation":
      // Offered to moderators only; a rank lost meanwhile closes it.
      if (!isModerator(state)) return null;
      return (
        <Dialog key="moderation" title="Moderation" onClose={close} wide>
          <LockdownSwitch store={store} act={props.act} />
          <Tabs label="Moderation" tabs={moderationTabs(store, props.act, api, open)} />
        </Dialog>
      );
    case "bots":
      if (!isAdmin(state)) return null;
      return (
        <Dialog key="bots" title="Bots and plugins" onClose={close} wide>
          <Tabs label="Bots and plugins" tabs={[{ name: "Bots", body: () => <Bots store={store} api={api} /> }, { name: "Plugins", body: () => <Plugins store={store} api={api} /> }]} />
        </Dialog>
      );
  }
}

/** Tabs as the ARIA pattern has them: arrow keys move between tabs, the panel follows. */
export function Tabs(props: { label: string; tabs: { name: string; badge?: number; body: () => ComponentChildren }[] }) {
  const [at, setAt] = useState(0);
  const list = useRef<HTMLDivElement>(null);
  const id = props.label.toLowerCase().replace(/\W+/g, "-");
  const move = (e: KeyboardEvent) => {
    const n = props.tabs.length;
    let next = -1;
    if (e.key === "ArrowRight") next = (at + 1) % n;
    else if (e.key === "ArrowLeft") next = (at - 1 + n) % n;
    else if (e.key === "Home") next = 0;
    else if (e.key === "End") next = n - 1;
    if (next < 0) return;
    e.preventDefault();
    setAt(next);
    list.current?.querySelectorAll<HTMLButtonElement>("[role=tab]")[next]?.focus();
  };
  return (
    <div class="tabs">
      <div class="tab-list" role="tablist" aria-label={props.label} ref={list} onKeyDown={move}>
        {props.tabs.map((t, i) => (
          <button
            type="button"
            role="tab"
            key={t.name}
            id={`${id}-tab-${i}`}
            class={i === at ? "tab tab-current" : "tab"}
            aria-selected={i === at}
            aria-controls={`${id}-panel`}
            tabIndex={i === at ? 0 : -1}
            onClick={() => setAt(i)}
          >
            {t.name}
            {!!t.badge && (
              <>
                {" "}
                <span class="badge badge-mention">{t.badge}</span>
                <span class="visually-hidden"> open</span>
              </>
            )}
          </button>
        ))}
      </div>
      <div class="tab-panel" role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${at}`} key={at}>
        {props.tabs[at].body()}
      </div>
    </div>
  );
}
