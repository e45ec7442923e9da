// The way to the built-in issuer's account page (password, email address, two-step sign-in,
// passkeys, devices: EXTENSIONS.md 8), for a person signed in with it; the other issuers have
// account pages of their own.

import { useEffect, useState } from "preact/hooks";
import { isWebUrl } from "../../lib/api";
import { listIssuers } from "../../lib/oidc";
import { getCreds } from "../../lib/storage";

/**
 * The account page of the built-in issuer the person signed in with: undefined while it is
 * looked up, "" when they signed in otherwise (another issuer, a login link).
 */
export function useAccountUrl(base: string): string | undefined {
  const issuer = getCreds(base)?.issuer;
  const [url, setUrl] = useState<string | undefined>(issuer ? undefined : "");
  useEffect(() => {
    if (!issuer) return;
    listIssuers(base)
      .then((list) => {
        const own = list.find((i) => i.builtIn && i.issuer === issuer);
        const page = own ? own.issuer.replace(/\/+$/, "") + "/oauth/account" : "";
        setUrl(isWebUrl(page) ? page : "");
      })
      .catch(() => setUrl(""));
  }, [base, issuer]);
  return url;
}

/** "Account & security", opening the account page in a tab of its own. */
export function AccountLink(props: { base: string }) {
  const url = useAccountUrl(props.base);
  if (!url) return null;
  return (
    <a class="button" href={url} target="_blank" rel="noopener noreferrer">
      Account &amp; security
    </a>
  );
}
