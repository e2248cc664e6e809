// The household start page (/): back to the household link this browser opened last, if it still works.
// The app keeps that link (app.js, `hearth.household`), as an installed app keeps its start address.
const KEY = 'hearth.household';
const saved = localStorage.getItem(KEY);
if (saved && /^\/site\/[^/?#]+$/.test(saved)) {
  try {
    const res = await fetch(saved, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
    if (res.ok) location.replace(saved);
    // A link that was replaced (or its home deleted) is forgotten; the page says how to get the new one.
    else if (res.status === 404) localStorage.removeItem(KEY);
  } catch {
    // No answer: the hub is unreachable; stay on the page.
  }
}
