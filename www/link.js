// The URL fragment follows store.ui (written after a short pause), and "Copy link".
import { $, kb } from "./dom.js";
import { encodeState } from "./state.js";
import { store } from "./store.js";

/** Schedules a URL write; body[data-url] is "saved" once the URL is current (tests wait on it). */
export function saveUrl() {
  clearTimeout(store.url.timer);
  store.url.saves++;
  document.body.dataset.url = "pending";
  store.url.timer = setTimeout(writeUrl, 300);
}

async function writeUrl() {
  clearTimeout(store.url.timer);
  const mine = store.url.saves;
  const hash = await encodeState(store.ui);
  const url = location.pathname + location.search + hash;
  if (url !== location.pathname + location.search + location.hash) history.replaceState(null, "", url);
  if (mine === store.url.saves) document.body.dataset.url = "saved";
}

export async function share() {
  await writeUrl();
  const link = location.href;
  $("share-link").value = link;
  $("share-link").hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    $("share-status").textContent = `Link copied (${kb(link.length)}).`;
  } catch {
    $("share-link").select();
    $("share-status").textContent = "Copy the link below.";
  }
}
