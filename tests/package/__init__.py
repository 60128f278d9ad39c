"""The package as a whole: layers, imports, lint and types, docs, wheel, vendoring, Pyodide."""
