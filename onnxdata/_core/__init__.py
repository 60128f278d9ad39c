"""The bottom layer: the wire format (varints, tags, lengths), the errors, and the schema
(field declarations, message specs, the containers of repeated fields).
"""
