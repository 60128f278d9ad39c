"""Bytes <-> messages: decoders and encoders generated from the schema, and their fast paths."""
