// The keyboard shortcuts, listed in a dialog that `?` (outside a text box) or Ctrl+/ opens from
// anywhere in the chat. The list is the shortcuts the screens take (Chat, MessageList, Composer,
// the search's Ctrl+K); one added there is added here.

import { useEffect, useRef } from "preact/hooks";
import { Dialog } from "./common";
import "./shortcuts.css";

/** Whether a key press goes into a text: a text box, a list to pick from, an editable area. */
function typing(target: EventTarget | null): boolean {
  const el = target instanceof HTMLElement ? target : null;
  return !!el && (el.isContentEditable || el.matches("input, textarea, select"));
}

/** Opens the list on `?` (outside a text box) and on Ctrl+/ (⌘/), when no dialog is open. */
export function useShortcutsKey(open: () => void): void {
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const slash = (e.ctrlKey || e.metaKey) && !e.altKey && e.key === "/";
      const question = e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey && !typing(e.target);
      if ((!slash && !question) || e.defaultPrevented || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      latest.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

export function ShortcutsDialog(props: { onClose: () => void }) {
  const mod = /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘" : "Ctrl";
  const rows: [string[][], string][] = [
    [[[mod, "K"]], "Search messages"],
    [[["Alt", "↑"], ["Alt", "↓"]], "Previous or next channel"],
    [[["Alt", "Shift", "↑"], ["Alt", "Shift", "↓"]], "Previous or next channel with unread messages"],
    [[["Shift", "Page Up"]], "Jump to the first unread message"],
    [[["Shift", "Page Down"]], "Jump to the latest messages"],
    [[["Enter"]], "Send the message"],
    [[["Shift", "Enter"]], "Start a new line"],
    [[["↑"]], "In an empty message box: edit your last message"],
    [[["Shift", "↑"]], "In an empty message box: to the messages"],
    [[["↑"], ["↓"], ["Home"], ["End"]], "In the messages: move from message to message"],
    [[["Esc"]], "Cancel an edit; close a thread, a dialog or a notice; from the messages, back to the message box"],
    [[["?"], [mod, "/"]], "This list"],
  ];
  return (
    <Dialog title="Keyboard shortcuts" onClose={props.onClose} wide>
      <table class="shortcuts">
        <tbody>
          {rows.map(([combos, what]) => (
            <tr key={what}>
              <th scope="row">
                {combos.map((keys, i) => (
                  <span class="shortcut-combo" key={i}>
                    {i > 0 && <span class="shortcut-or"> or </span>}
                    {keys.map((k, j) => (
                      <>
                        {j > 0 && "+"}
                        <kbd key={k}>{k}</kbd>
                      </>
                    ))}
                  </span>
                ))}
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
