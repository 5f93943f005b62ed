-- 0040: name keys computed again (issue 33, 11): the folding key now also leaves out every
-- character Unicode names a filler (U+16FE4 KHITAN SMALL SCRIPT FILLER, the gap fillers),
-- which names now refuse (arena/wire/visible_text.py FILLERS).
--
-- As in 0021, keys are computed in Python: this only forgets them, and
-- services/db/name_keys.py (run by migrate() after the migrations) keys every row again, oldest
-- first; a name stored beside a real one with a filler keeps no key (logged).
UPDATE accounts SET name_key = NULL;
UPDATE bots SET name_key = NULL WHERE status <> 'deleted';
