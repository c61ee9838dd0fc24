"""One-shot reports of the cluster: collected once, printed as text or JSON."""
