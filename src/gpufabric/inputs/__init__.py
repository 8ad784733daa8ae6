"""The one loading layer for everything gpufabric reads from outside itself.

Every file, standard input and other program's output crosses it (CONTRIBUTING.md, "Reading
input"): `files` reads bytes and text (regular files only, size limits, decoding and control
characters named by line), `formats` parses strict JSON and YAML (duplicate keys, NaN,
nesting, aliases refused) and loads them into pydantic models with one-line errors. Every
refusal is an `InputError` (a UserError: one line on stderr, exit 2).
"""
