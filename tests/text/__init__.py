"""Text format and JSON against google.protobuf (text_format, json_format)."""
