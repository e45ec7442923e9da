// Putting text on the clipboard, for every Copy button of the client.

/**
 * Copies text to the clipboard: the Clipboard API where the page may use it (https, or
 * localhost), else the browser's copy command on the text selected in a box: box, when the
 * text is shown in one (a token), or a hidden one made for the moment (a plain-http page
 * reached by its network address has no Clipboard API).
 */
export async function copyText(text: string, box?: HTMLInputElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, the page not focused): the selection below.
  }
  const made = box ? null : document.createElement("textarea");
  if (made) {
    made.value = text;
    made.setAttribute("readonly", "");
    made.className = "visually-hidden";
    document.body.append(made);
  } else box?.focus();
  (box ?? made)!.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    made?.remove();
  }
}
