/*
 * Starts the sandbox realm before the app's module graph: fetches the realm bundle and answers the hello of
 * index.html's own frame (#lm-realm-frame) only: its window, origin "null", this wire version, the app's
 * attributes. src/sandbox/earlyRealm.ts claims it. Copied as is (ES5, tiny): see src/sandbox/README.md.
 */
(function () {
  "use strict";
  var VERSION = 5;
  var FRAME_ID = "lm-realm-frame";
  var sandboxUrl = new URL("sandbox.html", document.baseURI).href;
  var realmUrl = new URL("generated/realm.js", document.baseURI).href;
  var channel = new MessageChannel();
  var bundle = fetch(realmUrl, { credentials: "same-origin" }).then(function (response) {
    var type = response.headers.get("content-type") || "";
    if (!response.ok || type.indexOf("text/html") >= 0) throw new Error("realm bundle: HTTP " + response.status);
    return response.blob();
  });
  // A failure is the app's (loadRealmBundle.ts retries).
  bundle.catch(function () {});
  var controlled = !!(navigator.serviceWorker && navigator.serviceWorker.controller);
  var claimed = false;
  var hello = false;
  var started = false;

  function ourFrame(source) {
    var frame = document.getElementById(FRAME_ID);
    return (
      frame instanceof HTMLIFrameElement &&
      source !== null &&
      source === frame.contentWindow &&
      frame.getAttribute("sandbox") === "allow-scripts" &&
      frame.src === sandboxUrl &&
      !frame.hasAttribute("srcdoc") &&
      frame
    );
  }

  function onMessage(event) {
    var data = event.data;
    if (claimed || hello || controlled || event.origin !== "null" || typeof data !== "object" || data === null) return;
    if (data.type !== "livemark-sandbox-hello" || data.version !== VERSION) return;
    var frame = ourFrame(event.source);
    if (!frame) return;
    hello = true;
    bundle.then(
      function (blob) {
        if (claimed || started || frame.contentWindow === null) return;
        started = true;
        frame.contentWindow.postMessage({ type: "livemark-sandbox-start", version: VERSION, bundle: blob }, "*", [
          channel.port2,
        ]);
      },
      function () {},
    );
  }
  window.addEventListener("message", onMessage);

  Object.defineProperty(window, "livemarkRealmStart", {
    configurable: true,
    value: Object.freeze({
      realmUrl: realmUrl,
      sandboxUrl: sandboxUrl,
      bundle: bundle,
      claim: function () {
        claimed = true;
        window.removeEventListener("message", onMessage);
        delete window.livemarkRealmStart;
        return { started: started, hello: hello, port: channel.port1, framePort: channel.port2 };
      },
    }),
  });
})();
