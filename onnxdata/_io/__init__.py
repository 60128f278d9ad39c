"""Files and streams: atomic writes, memory maps, streaming, type detection, external data."""
