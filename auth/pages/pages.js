// The sign-in pages' one script: passkeys (WebAuthn needs a script) and the sign-up's check of
// a username as it is typed. Every form works without it.
"use strict";

(function () {
  // base64url <-> ArrayBuffer, for browsers without PublicKeyCredential.parse*FromJSON.
  function fromB64(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    var bin = atob(s + "===".slice((s.length + 3) % 4));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toB64(buf) {
    var bytes = new Uint8Array(buf), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function creationOptions(o) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(o);
    }
    o.challenge = fromB64(o.challenge);
    o.user.id = fromB64(o.user.id);
    (o.excludeCredentials || []).forEach(function (c) { c.id = fromB64(c.id); });
    return o;
  }
  function requestOptions(o) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(o);
    }
    o.challenge = fromB64(o.challenge);
    (o.allowCredentials || []).forEach(function (c) { c.id = fromB64(c.id); });
    return o;
  }
  function credentialJSON(c) {
    if (c.toJSON) return c.toJSON();
    var r = c.response, out = { id: c.id, rawId: toB64(c.rawId), type: c.type, clientExtensionResults: c.getClientExtensionResults(), response: { clientDataJSON: toB64(r.clientDataJSON) } };
    if (r.attestationObject) {
      out.response.attestationObject = toB64(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = toB64(r.authenticatorData);
      out.response.signature = toB64(r.signature);
      if (r.userHandle) out.response.userHandle = toB64(r.userHandle);
    }
    return out;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (res) {
      return res.json().then(function (j) {
        if (!res.ok) throw new Error(j.error || "Something went wrong. Try again.");
        return j;
      });
    });
  }

  function passkey(button) {
    var purpose = button.getAttribute("data-passkey");
    var q = "purpose=" + encodeURIComponent(purpose);
    if (button.getAttribute("data-id")) q += "&id=" + encodeURIComponent(button.getAttribute("data-id"));
    if (purpose === "add") {
      var name = document.getElementById("passkey-name");
      if (name && name.value.trim()) q += "&name=" + encodeURIComponent(name.value.trim());
    }
    var shown = document.getElementById("passkey-error");
    if (shown) shown.hidden = true;
    button.disabled = true;
    post("passkey/options?" + q).then(function (options) {
      if (!window.PublicKeyCredential) throw new Error("This browser has no passkeys.");
      var pk = options.publicKey;
      if (pk.user) return navigator.credentials.create({ publicKey: creationOptions(pk) });
      return navigator.credentials.get({ publicKey: requestOptions(pk) });
    }).then(function (cred) {
      if (!cred) throw new Error("No passkey was given.");
      return post("passkey/finish?" + q, credentialJSON(cred));
    }).then(function (res) {
      window.location.assign(res.next);
    }).catch(function (err) {
      button.disabled = false;
      if (!shown) return;
      shown.textContent = err && err.name === "NotAllowedError" ? "The passkey was not used (cancelled, or none here for this account)." : err.message;
      shown.hidden = false;
      shown.focus && shown.setAttribute("tabindex", "-1");
      shown.focus();
    });
  }

  // The username check: after a pause in typing, ask whether the name is free and say so in the
  // field's hint (aria-live reads it out).
  function usernameCheck(input) {
    var hint = document.getElementById("username-hint");
    if (!hint) return;
    var first = hint.textContent, timer = 0, asked = "";
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var name = input.value.trim().toLowerCase();
        if (name === asked) return;
        asked = name;
        if (name.length === 0) {
          hint.textContent = first;
          hint.className = "hint";
          return;
        }
        fetch("username?name=" + encodeURIComponent(name), { credentials: "same-origin" })
          .then(function (r) { return r.json(); })
          .then(function (j) {
            if (asked !== name || !j.message) return;
            hint.textContent = j.message;
            hint.className = "hint " + (j.ok ? "good" : "bad");
          })
          .catch(function () {});
      }, 350);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-passkey]").forEach(function (b) {
      b.addEventListener("click", function () { passkey(b); });
    });
    var u = document.querySelector("input[data-check=username]");
    if (u) usernameCheck(u);
  });
})();
