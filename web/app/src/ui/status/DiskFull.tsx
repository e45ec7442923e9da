// The notice of a full disk (EXTENSIONS.md 11): while the server refuses changes because its
// disk is full, everyone is told at the top of the main column that what they send waits and
// that reading goes on; admins get the way to the status screen. It goes when a change goes
// through again (state/session.ts also asks /healthz meanwhile).

import { isAdmin } from "../../lib/ranks";
import { useStore, type Store } from "../../state/store";
import { communityHash } from "../admin/routes";
import "../notify/notify.css";

export function DiskFullBanner(props: { store: Store }) {
  const state = useStore(props.store, "disk", "me");
  if (!state.diskFull) return null;
  return (
    <div class="main-banner disk-banner" role="alert">
      <p class="main-banner-text">
        <strong>The server’s disk is full.</strong> Reading works as usual; new messages, uploads and changes wait until space is freed on it.
      </p>
      {isAdmin(state) && (
        <a class="button" href={communityHash("status")}>
          Server status
        </a>
      )}
    </div>
  );
}
