// Web Push in this browser (EXTENSIONS.md 7): whether it can, the service worker that shows the
// pushes (served beside the client as sw.js, scope /app/), a subscription's keys as the server
// takes them, and a name for the device. state/push.ts decides when to subscribe.

import { base64url } from "./oidc";

/** Whether this browser can receive pushes here: a service worker, the Push API, notifications. */
export function pushSupported(): boolean {
  return typeof window !== "undefined" && window.isSecureContext && "serviceWorker" in navigator && "PushManager" in window && typeof Notification !== "undefined";
}

/**
 * The client's service worker, registered (again: the browser checks it for a new version) from
 * beside the page; undefined where there is none (a copy of the client served without it).
 */
export async function serviceWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!("serviceWorker" in navigator)) return undefined;
  try {
    await navigator.serviceWorker.register("sw.js");
    return await navigator.serviceWorker.ready;
  } catch {
    return undefined;
  }
}

/** Bytes from base64url (padding optional), as the server gives its VAPID key. */
export function fromBase64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, ""));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A subscription's key as AddPushSubscription takes it: base64url, "" when it has none. */
export function keyOf(sub: PushSubscription, name: PushEncryptionKeyName): string {
  const k = sub.getKey(name);
  return k ? base64url(new Uint8Array(k)) : "";
}

/** Whether a subscription was made for this server's key (a subscription holds one key). */
export function sameKey(sub: PushSubscription, key: Uint8Array): boolean {
  const had = sub.options?.applicationServerKey;
  if (!had) return false;
  const a = new Uint8Array(had);
  return a.length === key.length && a.every((x, i) => x === key[i]);
}

/** The device as the person's list of devices names it: "Firefox on Android". */
export function deviceName(ua: string): string {
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /OPR\/|Opera/.test(ua)
      ? "Opera"
      : /Firefox\//.test(ua)
        ? "Firefox"
        : /Chrome\/|Chromium\/|CriOS\//.test(ua)
          ? "Chrome"
          : /Safari\//.test(ua)
            ? "Safari"
            : "A browser";
  const system = /iPhone/.test(ua)
    ? "iPhone"
    : /iPad/.test(ua)
      ? "iPad"
      : /Android/.test(ua)
        ? "Android"
        : /Windows/.test(ua)
          ? "Windows"
          : /Mac OS X|Macintosh/.test(ua)
            ? "macOS"
            : /CrOS/.test(ua)
              ? "ChromeOS"
              : /Linux/.test(ua)
                ? "Linux"
                : "";
  return system ? `${browser} on ${system}` : browser;
}
