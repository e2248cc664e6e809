// How the Set up view's sections redraw: a section is rebuilt only when the data it shows changed, and the
// focused control keeps its focus across the rebuild.
import { t } from './i18n.js';
import { el } from './view.js';

/** Redraws `node` with `build()` when `signature` changed; the focused control (by `data-focus`) stays focused. */
export function part(node, signature, build) {
  if (node.dataset.signature === signature) return;
  const hadFocus = node.contains(document.activeElement);
  const focused = hadFocus ? document.activeElement?.dataset?.focus : undefined;
  node.dataset.signature = signature;
  node.replaceChildren(...build());
  if (!hadFocus) return;
  // The same control again; when it is gone (an accepted device's row), the section's heading, so focus
  // never falls back to the top of the page.
  const again = focused && node.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
  (again || node.querySelector('h2'))?.focus();
}

/** A section's heading: focusable from script (`part` moves focus there), not in the tab order. */
export const heading = (id, key) => el('h2', { id, tabindex: -1 }, t(key));
