"""How an action names the cluster it goes to, in confirmations, plans and the audit log."""

from __future__ import annotations

from ndbtop.model.snapshot import ClusterSnapshot


def cluster_target(address: str, generation: int | None = None) -> str:
    """``management server 10.0.0.5:1186``, with ``, configuration generation 7`` when known.

    ``address`` is the management server the action is sent to (the one that answered),
    not the connect string; ``generation`` the cluster configuration's generation.
    """
    text = f"management server {address}"
    if generation is not None:
        text += f", configuration generation {generation}"
    return text


def audit_fields(address: str, generation: int | None = None) -> dict[str, object]:
    """The fields of an audit record that name the cluster acted on."""
    fields: dict[str, object] = {"target": address}
    if generation is not None:
        fields["generation"] = generation
    return fields


def generation_of(snapshot: ClusterSnapshot) -> int | None:
    """The configuration generation of the cluster the snapshot shows, when known."""
    return snapshot.config.generation if snapshot.config is not None else None
