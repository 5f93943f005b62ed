-- 0021: name keys computed again (issue 21): the folding key now leaves out default-ignorable
-- code points and blanks (U+034F, U+FE0F, U+17B4, the Hangul fillers, U+2800...), which names
-- now refuse (services/domain/names.py).
--
-- Keys are computed in Python, so this only forgets them; services/db/name_keys.py, which
-- migrate() runs after the migrations, keys every row again oldest first. A name that was
-- accepted beside a real one with an invisible character (`h<U+034F>ouse` beside `house`) now
-- folds onto the older row's key: it keeps no key (logged) until an operator renames it.
UPDATE accounts SET name_key = NULL;
UPDATE bots SET name_key = NULL WHERE status <> 'deleted';
