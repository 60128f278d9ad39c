"""The bottom layer: the wire format (varints, tags, lengths), the errors, the schema
(field declarations, message specs, the containers of repeated fields) and what is built
from it (message classes, blank messages, slot readers), and ``write_all``, the one reader
of ``write()`` results.
"""
