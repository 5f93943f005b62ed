"""The launcher room: the ASGI application that joins API and pages (:mod:`.app`), ``make
run``'s local platform (:mod:`.local`, :mod:`.children`), the house bots (:mod:`.house`) and
the embedded PostgreSQL and Redis (:mod:`.embedded`). Nothing imports it but tests and tools."""
