"""What a page must do on any screen, checked inside a Playwright page: it is no wider than the
viewport, every bot name outside a bracket can be seen without scrolling sideways, no score is
hidden (cut off, clipped by a box, or scrolled out of view), and no text is under 11 px.

A bracket (``.bracket-svg``) is a diagram that scrolls sideways inside its panel, with a hint
saying so; everything else reflows to the screen.
"""

from __future__ import annotations

from typing import Any

MIN_TEXT_PX = 11

# Runs in the page: the problems found, one line each.
CHECK = """
(minPx) => {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const describe = (el) => {
    const text = (el.textContent || el.getAttribute('aria-label') || '').trim().replace(/\\s+/g, ' ');
    const where = el.closest('section[id], table[class], div[id]');
    const at = where ? ` in ${where.tagName.toLowerCase()}${where.id ? '#' + where.id : '.' + where.className}` : '';
    return `<${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}"> "${text.slice(0, 40)}"${at}`;
  };
  const width = document.documentElement.scrollWidth;
  if (width > vw) problems.push(`page is ${width} px wide in a ${vw} px viewport`);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  // the part of el that is not clipped by an ancestor's overflow (or the viewport's width)
  const clipped = (el) => {
    const r = el.getBoundingClientRect();
    let left = r.left, right = r.right, top = r.top, bottom = r.bottom;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
        const c = a.getBoundingClientRect();
        if (s.overflowX !== 'visible') { left = Math.max(left, c.left); right = Math.min(right, c.right); }
        if (s.overflowY !== 'visible') { top = Math.max(top, c.top); bottom = Math.min(bottom, c.bottom); }
      }
    }
    left = Math.max(left, 0); right = Math.min(right, vw);
    return (right - left) < r.width - 1 || (bottom - top) < r.height - 1;
  };
  const cut = (el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible';
  for (const el of document.querySelectorAll('main .bot')) {
    if (el.closest('.bracket-svg') || !shown(el)) continue;
    if (clipped(el) || cut(el)) problems.push(`bot name off screen or cut: ${describe(el)}`);
  }
  for (const el of document.querySelectorAll('main [data-score]')) {
    if (el.closest('.bracket-svg')) continue;
    if (!shown(el)) { problems.push(`score not shown: ${describe(el)}`); continue; }
    if (clipped(el) || cut(el)) problems.push(`score hidden or cut: ${describe(el)}`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const small = new Map();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !n.textContent.trim() || !shown(el) || el.closest('.defs')) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest('svg');
    if (svg && svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      px *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;  // drawn size
    }
    if (px < minPx - 0.05 && !small.has(el)) small.set(el, px);
  }
  for (const [el, px] of [...small].slice(0, 5)) problems.push(`text ${px.toFixed(1)} px: ${describe(el)}`);
  if (small.size > 5) problems.push(`... and ${small.size - 5} more texts under ${minPx} px`);
  return problems;
}
"""


def problems(page: Any) -> list[str]:
    """What does not fit on ``page`` as it is now (empty when all is well)."""
    found: list[str] = page.evaluate(CHECK, MIN_TEXT_PX)
    return found


def page_width(page: Any) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width
