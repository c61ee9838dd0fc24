"""What changed between two snapshots, as a JSON-ready patch, and the patch applied back.

Snapshots are trees of immutable values, and the collectors keep the same object for
what did not change (a panel read in rotation, a node whose status line is the same, a
thread whose ``cpustat`` row is the same). :func:`diff` walks two trees by object
identity and encodes only the parts that are new, so a refresh of a large cluster is
recorded in a few kilobytes rather than half a megabyte. :func:`apply` rebuilds the
encoded form of the new snapshot from the encoded form of the previous one; the reader
then decodes it as it would a whole snapshot.

A patch is the encoded value itself, or one of two forms:

* ``{"@patch": {field: patch, ...}}``: a record (frozen dataclass or named tuple) of the
  same class, with only the fields named changed;
* ``{"@items": n, "set": [[index, patch], ...]}``: a sequence of ``n`` items, the same as
  before but for those listed (items past the old length are always listed).
"""

from __future__ import annotations

from typing import Any

from ndbtop.record.codec import encode, field_names, is_record

SAME: Any = object()
"""What :func:`diff` returns for a value that did not change."""

_ITEMS_AT_MOST = 0.5
"""A sequence is patched item by item while at most this share of its items changed."""


def diff(before: Any, after: Any) -> Any:
    """The patch that turns ``before`` into ``after`` (:data:`SAME` if nothing changed)."""
    if after is before:
        return SAME
    if is_record(after):
        if type(after) is not type(before):
            return encode(after)
        fields: dict[str, Any] = {}
        for name in field_names(type(after)):
            patch = diff(getattr(before, name), getattr(after, name))
            if patch is not SAME:
                fields[name] = patch
        return {"@patch": fields} if fields else SAME
    if isinstance(after, tuple) and isinstance(before, tuple) and after and before:
        return _diff_items(before, after)
    if type(after) is type(before) and after == before:
        return SAME
    return encode(after)


def _diff_items(before: tuple[Any, ...], after: tuple[Any, ...]) -> Any:
    changed = []
    for i, item in enumerate(after):
        if i >= len(before):
            changed.append([i, encode(item)])
            continue
        patch = diff(before[i], item)
        if patch is not SAME:
            changed.append([i, patch])
    if not changed and len(after) == len(before):
        return SAME
    if len(changed) > _ITEMS_AT_MOST * len(after):
        return encode(after)
    return {"@items": len(after), "set": changed}


def apply(base: Any, patch: Any) -> Any:
    """The encoded value ``patch`` turns the encoded value ``base`` into.

    ``base`` is left as it is: only the parts on the way to a change are copied.
    """
    if isinstance(patch, dict):
        if "@patch" in patch:
            if not isinstance(base, dict):
                raise ValueError("a record patch for something that is not a record")
            out = dict(base)
            for name, value in patch["@patch"].items():
                out[name] = apply(base.get(name), value)
            return out
        if "@items" in patch:
            if not isinstance(base, list):
                raise ValueError("an item patch for something that is not a list")
            items = base[: patch["@items"]]
            items.extend([None] * (patch["@items"] - len(items)))
            for index, value in patch["set"]:
                items[index] = apply(base[index] if index < len(base) else None, value)
            return items
    return patch
