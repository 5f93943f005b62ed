"""Pure view models for the pages: plain data in (rows, replays), plain data out.

Nothing here touches the database or the network; the handlers in ``pages/`` fetch rows with
``services.db.page_reads`` and pass them through these functions, and the templates only lay out
what comes back. Every string that a bot or user supplied stays a plain ``str`` here: the
templates escape it (Jinja2 autoescape).

One module per page family: :mod:`.home` (leaderboards), :mod:`.tournament` (rounds and
pairings) with :mod:`.standings` (table, crosstable) and :mod:`.bracket` (knockout diagrams),
:mod:`.bot` (a bot's page), :mod:`.replay` (the match page's viewer), and :mod:`.common`
(bot links, a match's outcome) that they share.
"""
