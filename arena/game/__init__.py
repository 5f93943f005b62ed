"""The game boundary (:mod:`arena.game.boundary`) and the games behind it: Truco, its deals and words.

Every game module is imported here, and registers itself on import (OpenSpiel's way): loading
anything of ``arena.game`` fills :data:`arena.game.boundary.GAMES`.
"""

from arena.game import truco as truco
