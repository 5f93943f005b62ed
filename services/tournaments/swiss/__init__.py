"""The Swiss system: pairing by maximum-weight matching (``pairing``) over the players' histories, its format, and the pieces of the matching (field, weights, graph, certificate, split, mano)."""
