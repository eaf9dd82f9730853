// The list's state in the address: each filter step is a history entry; typing is one, written
// once the reader pauses (the address is not rewritten on every key).
import { hashString } from "./hashstate.mjs";
import { schema, state, warn } from "./data.mjs";

const URL_PAUSE_MS = 500;
let lastHash = null, urlTimer = 0;

function currentHash() { return location.hash.replace(/^#/, ""); }

// mode: "push" (a new history entry), "replace" (this entry), "type" (push after a pause).
export function saveHash(mode) {
  clearTimeout(urlTimer);
  if (mode === "type") { urlTimer = setTimeout(function () { saveHash("push"); }, URL_PAUSE_MS); return; }
  const hash = hashString(state, schema);
  if (hash === lastHash && hash === currentHash()) return;
  lastHash = hash;
  const url = hash ? "#" + hash : location.pathname + location.search;
  try {
    if (mode === "push" && hash !== currentHash()) history.pushState(null, "", url); else history.replaceState(null, "", url);
  } catch (e) { warn("cannot update the address", e); }
}

// The address as it is now is the state's (a pending write is dropped): false when the list
// wrote it itself, true when it came from elsewhere (a link, Back or Forward).
export function takeAddress() {
  clearTimeout(urlTimer);
  if (currentHash() === lastHash) return false;
  lastHash = currentHash();
  return true;
}
