"""Tools over messages: the validator, ``show`` and the schema-less ``raw`` dump."""
